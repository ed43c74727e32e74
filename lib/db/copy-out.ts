import { Readable } from "node:stream";
import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Pool, PoolClient } from "pg";
import { isEmbedded, type Db } from "./client";

// `COPY (query) TO STDOUT` in PostgreSQL's text format (a row a line, columns tab-separated, NULL as \N, backslash,
// tab, newline, carriage return, backspace, form feed and vertical tab escaped): PostgreSQL's cheapest way to hand out
// many rows, and byte for byte ClickHouse's TabSeparated input. node-postgres has no COPY of its own; this is the
// smallest "submittable" query it accepts (the protocol messages it passes on: copyData, then readyForQuery).

const dialect = new PgDialect();

/** The pg connection a submittable query is handed: its socket is paused while the reader has not caught up. */
interface PgConnection {
  query(text: string): void;
  stream: { pause(): void; resume(): void };
}

/** One COPY TO STDOUT on a pg client: a stream of what PostgreSQL sends (rows may span chunks). */
class CopyOutStream extends Readable {
  private connection?: PgConnection;
  constructor(private readonly text: string) {
    super();
  }
  submit(connection: PgConnection) {
    this.connection = connection;
    connection.query(this.text);
  }
  handleCopyData(message: { chunk: Buffer }) {
    // A copy: the chunk is a view of the protocol parser's buffer, which the next socket read may overwrite.
    if (!this.push(Buffer.from(message.chunk))) this.connection?.stream.pause();
  }
  override _read() {
    this.connection?.stream.resume();
  }
  handleCommandComplete() {}
  handleEmptyQuery() {}
  handleReadyForQuery() {
    this.push(null);
  }
  handleError(error: Error) {
    this.destroy(error);
  }
}

/**
 * The rows of `query` as PostgreSQL's COPY text, in chunks (a line may span two). COPY takes no bind parameters, so
 * the query's are inlined (drizzle escapes them as literals). PostgreSQL: on a connection of its own, released (or,
 * if the reader stopped early, closed) at the end. PGlite: COPY TO '/dev/blob', the whole text at once.
 */
export async function* copyOut(db: Db, query: SQL): AsyncGenerator<Buffer> {
  const { sql: select } = dialect.sqlToQuery(query.inlineParams());
  if (isEmbedded(db)) {
    const client = (db as unknown as { $client: { query(text: string): Promise<{ blob?: Blob }> } }).$client;
    const { blob } = await client.query(`COPY (${select}) TO '/dev/blob'`);
    if (blob && blob.size > 0) yield Buffer.from(await blob.arrayBuffer());
    return;
  }
  const pool = (db as unknown as { $client: Pool }).$client;
  const client: PoolClient = await pool.connect();
  let ended = false;
  try {
    const stream = new CopyOutStream(`COPY (${select}) TO STDOUT`);
    void client.query(stream as unknown as Parameters<PoolClient["query"]>[0]);
    for await (const chunk of stream) yield chunk as Buffer;
    ended = true;
  } finally {
    // A COPY left half read would still be sending on this connection: close it rather than return it to the pool.
    client.release(!ended);
  }
}
