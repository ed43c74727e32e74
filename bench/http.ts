import autocannon from "autocannon";
import { median, percentile, round } from "./stats";

export interface LatencyResult {
  p50Ms: number;
  p95Ms: number;
  samples: number;
  bytes: number;
}

/** Sequential requests (concurrency 1) after a warm-up; latencies as the client sees them. */
export async function latency(
  url: string,
  headers: Record<string, string>,
  samples: number,
  warmup = 5,
): Promise<LatencyResult> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < warmup + samples; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    const body = await res.text();
    const ms = performance.now() - t0;
    if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${body.slice(0, 300)}`);
    bytes = body.length;
    if (i >= warmup) times.push(ms);
  }
  return { p50Ms: round(median(times), 2), p95Ms: round(percentile(times, 95), 2), samples, bytes };
}

export interface ThroughputResult {
  rps: number;
  p50Ms: number;
  non2xx: number;
  errors: number;
}

/** autocannon: 50 connections, fixed duration, loopback. */
export async function throughput(
  url: string,
  headers: Record<string, string>,
  seconds: number,
): Promise<ThroughputResult> {
  const r = await autocannon({ url, connections: 50, duration: seconds, headers });
  return { rps: round(r["2xx"] / r.duration), p50Ms: r.latency.p50, non2xx: r.non2xx, errors: r.errors };
}
