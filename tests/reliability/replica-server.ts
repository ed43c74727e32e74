import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { adminPostgresUrl } from "@/lib/testing/engines";
import { freePort } from "@/lib/testing/next-server";

const run = promisify(execFile);

/**
 * A real streaming replica of the local PostgreSQL (the one TEST_POSTGRES_URL / 127.0.0.1:5432 names), made with
 * `pg_basebackup -R` into a temporary directory and started on another port of 127.0.0.1, as the postgres OS user
 * (the tests run as root). Debian keeps the primary's configuration in /etc, so the copy gets a minimal one of
 * its own. Whole cluster: it takes as long as the local cluster's size needs.
 */

const PG_BIN = process.env.PG_BIN || "/usr/lib/postgresql/15/bin";
const OS_USER = "postgres";

async function asPostgres(command: string, args: string[], timeoutMs: number): Promise<string> {
  const argv = process.getuid?.() === 0 ? ["runuser", ["-u", OS_USER, "--", command, ...args]] : [command, args];
  const { stdout } = await run(argv[0] as string, argv[1] as string[], { timeout: timeoutMs, killSignal: "SIGKILL" });
  return stdout;
}

async function primaryQuery<T extends pg.QueryResultRow>(text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: adminPostgresUrl() });
  await client.connect();
  try {
    return (await client.query<T>(text)).rows;
  } finally {
    await client.end();
  }
}

/**
 * Lets 127.0.0.1 open replication connections with trust auth (the local cluster's pg_hba.conf has none by
 * default); .ci/run does the same. Reloads the primary only when it adds the line.
 */
export async function ensureReplicationHba(): Promise<void> {
  const [{ hba_file: file }] = await primaryQuery<{ hba_file: string }>("SHOW hba_file");
  const text = fs.readFileSync(file, "utf8");
  if (/^\s*host\s+replication\s+all\s+127\.0\.0\.1\/32\s+trust\b/m.test(text)) return;
  fs.appendFileSync(file, `${text.endsWith("\n") ? "" : "\n"}host replication all 127.0.0.1/32 trust\n`);
  // The postmaster re-reads pg_hba.conf on SIGHUP, when it gets to it: wait until a new backend (forked from it)
  // reports a newer configuration load than before the signal.
  const loadTime = "SELECT (extract(epoch FROM pg_conf_load_time()) * 1000000)::bigint::text AS at";
  const [{ at: before }] = await primaryQuery<{ at: string }>(loadTime);
  await primaryQuery("SELECT pg_reload_conf()");
  const deadline = Date.now() + 60_000;
  while (BigInt((await primaryQuery<{ at: string }>(loadTime))[0].at) <= BigInt(before)) {
    if (Date.now() > deadline) throw new Error("the primary did not reload pg_hba.conf within 60 s");
    await new Promise((r) => setTimeout(r, 50));
  }
}

export class Replica {
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  get dataDir(): string {
    return path.join(this.dir, "data");
  }

  /** The replica's URL for `database` (the primary's databases, read-only). */
  url(database: string, applicationName?: string): string {
    const u = new URL(adminPostgresUrl()); // same role as the primary's tests use
    u.hostname = "127.0.0.1";
    u.port = String(this.port);
    u.pathname = `/${database}`;
    if (applicationName) u.searchParams.set("application_name", applicationName);
    return u.toString();
  }

  static async start(): Promise<Replica> {
    await ensureReplicationHba();
    const settings = await primaryQuery<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings WHERE name IN
        ('max_connections', 'max_worker_processes', 'max_wal_senders', 'max_prepared_transactions', 'max_locks_per_transaction')`,
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cb-replica-"));
    const replica = new Replica(dir, await freePort());
    try {
      if (process.getuid?.() === 0) fs.chownSync(dir, ...(await postgresIds()));
      const primary = new URL(adminPostgresUrl());
      await asPostgres(
        path.join(PG_BIN, "pg_basebackup"),
        [
          "-h",
          primary.hostname,
          "-p",
          primary.port || "5432",
          "-U",
          "postgres",
          "-D",
          replica.dataDir,
          "-R",
          "-X",
          "stream",
          "-c",
          "fast",
        ],
        240_000,
      );
      // Hot standby needs these at least as high as the primary's.
      const conf = [
        `port = ${replica.port}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        "hot_standby = on",
        "shared_buffers = 32MB",
        "fsync = off",
        ...settings.map((s) => `${s.name} = ${s.setting}`),
      ].join("\n");
      fs.writeFileSync(path.join(replica.dataDir, "postgresql.conf"), `${conf}\n`);
      fs.writeFileSync(
        path.join(replica.dataDir, "pg_hba.conf"),
        "local all all trust\nhost all all 127.0.0.1/32 trust\n",
      );
      fs.rmSync(path.join(replica.dataDir, "postmaster.opts"), { force: true });
      if (process.getuid?.() === 0)
        for (const f of ["postgresql.conf", "pg_hba.conf"])
          fs.chownSync(path.join(replica.dataDir, f), ...(await postgresIds()));
      await replica.pgCtl(["start", "-w", "-t", "120", "-l", path.join(dir, "replica.log")], 150_000);
      return replica;
    } catch (e) {
      await replica.dispose();
      throw e;
    }
  }

  private pgCtl(args: string[], timeoutMs: number): Promise<string> {
    return asPostgres(path.join(PG_BIN, "pg_ctl"), ["-D", this.dataDir, ...args], timeoutMs);
  }

  /** Runs SQL on the replica (as the superuser), e.g. pg_wal_replay_pause(). */
  async query<T extends pg.QueryResultRow>(text: string, database = "postgres"): Promise<T[]> {
    const client = new pg.Client({ connectionString: this.url(database), connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  }

  /** Waits until the replica has replayed what the primary had written when this was called. */
  async catchUp(timeoutMs = 60_000): Promise<void> {
    const [{ lsn }] = await primaryQuery<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn");
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const [{ reached }] = await this.query<{ reached: boolean }>(
        `SELECT pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn AS reached`,
      );
      if (reached) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the replica did not reach ${lsn} within ${timeoutMs} ms`);
  }

  /** Stops the replica (immediate: like a crash or a network loss, as far as the app can tell). */
  async stop(): Promise<void> {
    if (!fs.existsSync(path.join(this.dataDir, "postmaster.pid"))) return;
    await this.pgCtl(["stop", "-m", "immediate", "-w", "-t", "30"], 40_000).catch(async () => {
      const pid = Number(fs.readFileSync(path.join(this.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
      if (pid > 0) process.kill(pid, "SIGKILL");
    });
  }

  /** Stops it and removes its directory. */
  async dispose(): Promise<void> {
    await this.stop().catch(() => undefined);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

async function postgresIds(): Promise<[number, number]> {
  const { stdout } = await run("id", ["-u", OS_USER]);
  const { stdout: gid } = await run("id", ["-g", OS_USER]);
  return [Number(stdout.trim()), Number(gid.trim())];
}
