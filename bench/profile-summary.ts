// Top functions by self time of a V8 CPU profile (node --cpu-prof), grouped by function and file:
// `npx tsx bench/profile-summary.ts bench/results/profile-pglite/*.cpuprofile [top]`.
import fs from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

function main(): void {
  const file = process.argv[2];
  const top = Number(process.argv[3] ?? 30);
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const grouped = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    const where = f.url.replace(/^.*\/(node_modules\/[^/]+(\/[^/]+)?|\.next[^/]*)\//, "$1/").slice(-70);
    const key = `${f.functionName || "(anonymous)"}  ${where}:${f.lineNumber + 1}`;
    grouped.set(key, (grouped.get(key) ?? 0) + us);
  }
  const rows = [...grouped.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  console.log(`total sampled ${(total / 1e6).toFixed(1)} s`);
  for (const [key, us] of rows) console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
}

main();
