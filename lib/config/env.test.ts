import { afterEach, describe, expect, it, vi } from "vitest";
import { allowedHosts, historySettings } from "./env";

describe("ALLOWED_HOSTS", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("reads comma-separated hosts, lower case, ignoring schemes, paths and blanks", () => {
    vi.stubEnv("ALLOWED_HOSTS", " API.example.com, https://portal.example.com/x ,,api.example.com:8443 ");
    expect([...allowedHosts()]).toEqual(["api.example.com", "portal.example.com", "api.example.com:8443"]);
    vi.stubEnv("ALLOWED_HOSTS", undefined);
    expect(allowedHosts().size).toBe(0);
  });
});

describe("HISTORY_CLICKHOUSE_URL", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("is off when unset; otherwise names the endpoint, the database (the path) and the move age", () => {
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", "");
    expect(historySettings()).toBeUndefined();
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", "http://user:pw@127.0.0.1:8123/calls_history");
    vi.stubEnv("HISTORY_MOVE_AFTER_MONTHS", "2");
    expect(historySettings()).toEqual({
      url: "http://user:pw@127.0.0.1:8123",
      database: "calls_history",
      moveAfterMonths: 2,
    });
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", "https://ch.example.com");
    vi.stubEnv("HISTORY_MOVE_AFTER_MONTHS", undefined);
    expect(historySettings()).toEqual({ url: "https://ch.example.com", database: "callbook", moveAfterMonths: 3 });
  });

  it("refuses what is not an http(s) URL naming a plain database, and a fractional age", () => {
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", "tcp://127.0.0.1:9000");
    expect(() => historySettings()).toThrow(/http\(s\) URL/);
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", "http://127.0.0.1:8123/a-b");
    expect(() => historySettings()).toThrow(/must name a database/);
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", "http://127.0.0.1:8123/");
    vi.stubEnv("HISTORY_MOVE_AFTER_MONTHS", "1.5");
    expect(() => historySettings()).toThrow(/whole number/);
  });

  it("reads HISTORY_CLICKHOUSE_CLUSTER with the HTTP endpoint of every server of it", () => {
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", "http://127.0.0.1:8124/h");
    vi.stubEnv("HISTORY_CLICKHOUSE_CLUSTER", "");
    expect(historySettings()?.cluster).toBeUndefined();
    vi.stubEnv("HISTORY_CLICKHOUSE_CLUSTER", "calls_cluster");
    vi.stubEnv("HISTORY_CLICKHOUSE_SERVERS", " http://127.0.0.1:8124, http://127.0.0.1:8125/x ");
    expect(historySettings()?.cluster).toEqual({
      name: "calls_cluster",
      serverUrls: ["http://127.0.0.1:8124", "http://127.0.0.1:8125"],
    });
    vi.stubEnv("HISTORY_CLICKHOUSE_SERVERS", "");
    expect(() => historySettings()).toThrow(/needs HISTORY_CLICKHOUSE_SERVERS/);
    vi.stubEnv("HISTORY_CLICKHOUSE_SERVERS", "127.0.0.1:9000");
    expect(() => historySettings()).toThrow(/must list http\(s\) URLs/);
    vi.stubEnv("HISTORY_CLICKHOUSE_CLUSTER", "a-b");
    expect(() => historySettings()).toThrow(/must name a cluster/);
  });

  it("reads HISTORY_RETENTION_MONTHS: unset keeps history; a whole number at least the move age", () => {
    vi.stubEnv("HISTORY_CLICKHOUSE_URL", "http://127.0.0.1:8123/h");
    vi.stubEnv("HISTORY_MOVE_AFTER_MONTHS", "3");
    vi.stubEnv("HISTORY_RETENTION_MONTHS", "");
    expect(historySettings()?.retentionMonths).toBeUndefined();
    vi.stubEnv("HISTORY_RETENTION_MONTHS", "24");
    expect(historySettings()?.retentionMonths).toBe(24);
    vi.stubEnv("HISTORY_RETENTION_MONTHS", "3");
    expect(historySettings()?.retentionMonths).toBe(3);
    for (const wrong of ["2", "12.5", "x"]) {
      vi.stubEnv("HISTORY_RETENTION_MONTHS", wrong);
      expect(() => historySettings()).toThrow(/HISTORY_RETENTION_MONTHS must be a whole number .* at least/);
    }
  });
});
