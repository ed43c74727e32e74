import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Test helper of the history tier's cluster (docs/contract.md "History tier"): two clickhouse-server processes on this
// machine, each with its own config, data directory and ports under a temporary directory, and a remote_servers
// cluster of two shards naming both (one replica each, internal_replication false).

/** Debian's package installs the server in /usr/sbin; the brief of issue 33 names /usr/bin: either. */
export const CLICKHOUSE_SERVER_BINARY = ["/usr/bin/clickhouse-server", "/usr/sbin/clickhouse-server"].find((p) =>
  fs.existsSync(p),
);

export interface TestCluster {
  name: string;
  /** The HTTP endpoint of each server (shard 1, shard 2). */
  httpUrls: string[];
  stop(): Promise<void>;
}

const CLUSTER = "history_test";

function configXml(dir: string, httpPort: number, tcpPort: number, tcpPorts: number[]): string {
  const shards = tcpPorts
    .map(
      (port) => `<shard><internal_replication>false</internal_replication>
        <replica><host>127.0.0.1</host><port>${port}</port></replica></shard>`,
    )
    .join("\n      ");
  return `<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>${dir}/server.log</log><errorlog>${dir}/server.err.log</errorlog></logger>
  <http_port>${httpPort}</http_port>
  <tcp_port>${tcpPort}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>${dir}/data/</path>
  <tmp_path>${dir}/tmp/</tmp_path>
  <user_files_path>${dir}/user_files/</user_files_path>
  <format_schema_path>${dir}/format_schemas/</format_schema_path>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <keep_alive_timeout>3</keep_alive_timeout>
  <max_concurrent_queries>50</max_concurrent_queries>
  <users_config>users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <remote_servers>
    <${CLUSTER}>
      ${shards}
    </${CLUSTER}>
  </remote_servers>
</yandex>
`;
}

const USERS_XML = `<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
`;

/** Answers once the server answers `SELECT 1` over HTTP; throws with its error log if it exits or stays silent 60 s. */
async function waitForServer(url: string, child: ChildProcess, dir: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) break;
    const ok = await fetch(`${url}/?query=SELECT%201`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const log = fs.existsSync(`${dir}/server.err.log`) ? fs.readFileSync(`${dir}/server.err.log`, "utf8") : "";
  throw new Error(`clickhouse-server at ${url} did not start (exit ${child.exitCode}): ${log.slice(-2000)}`);
}

/**
 * Starts the two servers (HTTP `basePort`, `basePort + 1`; native TCP `basePort + 976`, `+ 977`: 8124/8125 and
 * 9100/9101 by default) and waits until both answer. stop() ends both and removes their directory.
 */
export async function startTestCluster(basePort = 8124): Promise<TestCluster> {
  if (!CLICKHOUSE_SERVER_BINARY) throw new Error("clickhouse-server is not installed");
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "callbook-ch-cluster-"));
  const httpPorts = [basePort, basePort + 1];
  const tcpPorts = [basePort + 976, basePort + 977];
  const children: ChildProcess[] = [];
  const stop = async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once("exit", () => resolve());
            child.kill("SIGTERM");
          }),
      ),
    );
    fs.rmSync(root, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 2; i++) {
      const dir = path.join(root, `shard${i + 1}`);
      for (const sub of ["data", "tmp", "user_files", "format_schemas"])
        fs.mkdirSync(path.join(dir, sub), { recursive: true });
      fs.writeFileSync(path.join(dir, "config.xml"), configXml(dir, httpPorts[i], tcpPorts[i], tcpPorts));
      fs.writeFileSync(path.join(dir, "users.xml"), USERS_XML);
      children.push(
        spawn(CLICKHOUSE_SERVER_BINARY, [`--config-file=${path.join(dir, "config.xml")}`], {
          cwd: dir,
          stdio: "ignore",
        }),
      );
    }
    const httpUrls = httpPorts.map((port) => `http://127.0.0.1:${port}`);
    await Promise.all(httpUrls.map((url, i) => waitForServer(url, children[i], path.join(root, `shard${i + 1}`))));
    return { name: CLUSTER, httpUrls, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
