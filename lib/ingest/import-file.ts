import fs from "node:fs";
import path from "node:path";
import type { ProgressReporter } from "@/lib/runtime/progress";
import { isDatabaseUnavailable } from "@/lib/db/errors";
import { isEmbedded, type Db } from "@/lib/db/client";
import { asteriskToNative, splitCsvRecord, type AsteriskOptions } from "./asterisk";
import { modJsonCdrText } from "./cdr-body";
import { CdrRejectedError, ingestCdrs, type IngestOutcome } from "./ingest-cdrs";
import { parseCdrJson, readLines, toNativeCdr, type CdrDefaults } from "./native-lines";
import type { NativeCdr } from "./schemas";

// Bulk import of CDR files through the same rating path as POST /v1/cdrs (docs/contract.md §5):
// streamed record by record (constant memory), batched through ingestCdrs, one transaction per batch.
//
// Formats:
// - native:     JSON lines, one CDR per line (a FreeSWITCH document on a line is mapped too, as the API does)
// - freeswitch: JSON lines of mod_json_cdr documents; or a directory of mod_json_cdr .json files, one
//               document per file as its log-dir writes them (err-log-dir files of encode=true or base64 are
//               decoded: cdr-body.ts); or a single .json file holding one document
// - asterisk:   cdr_csv Master.csv (no header)
// Detection when --format is omitted: a directory or *.json -> freeswitch; *.csv -> asterisk;
// other files (*.jsonl, *.ndjson, ...) -> by their first record: freeswitch if it has a variables object, else native.

export const CDR_FILE_FORMATS = ["native", "freeswitch", "asterisk"] as const;
export type CdrFileFormat = (typeof CDR_FILE_FORMATS)[number];

export type IngestFn = (db: Db, cdrs: NativeCdr[]) => Promise<IngestOutcome[]>;

export interface ImportOptions extends AsteriskOptions, CdrDefaults {
  format?: CdrFileFormat;
  /** CDRs per transaction; default 1000. */
  batchSize?: number;
  /**
   * Batches in their transactions at once. Default: 2 on PostgreSQL (the next batch is parsed, rated and sent while
   * one is written), 1 on PGlite (one statement at a time: nothing to overlap).
   */
  concurrency?: number;
  progress?: ProgressReporter;
  /** The ingest function; tests may wrap it. Default ingestCdrs. */
  ingest?: IngestFn;
}

export interface RejectedLine {
  line: number;
  /** For a directory of documents: the file the record came from. */
  file?: string;
  error: string;
}

export interface ImportSummary {
  file: string;
  format: CdrFileFormat;
  records: number;
  inserted: number;
  duplicates: number;
  unrated: number;
  rejected: number;
  /** The first 100 rejected records. */
  rejectedLines: RejectedLine[];
  seconds: number;
  callsPerSecond: number;
}

const MAX_REJECTED_LISTED = 100;

/** Records in the order the import reads them: files as a directory's are sorted (by code unit), then lines. */
function fileOrder(a: { line: number; file?: string }, b: { line: number; file?: string }): number {
  const [fa, fb] = [a.file ?? "", b.file ?? ""];
  return fa < fb ? -1 : fa > fb ? 1 : a.line - b.line;
}
/** A CSV record that keeps a quote open this long is broken, not multi-line. */
const MAX_CSV_RECORD_CHARS = 64 * 1024;
/** One FreeSWITCH document per file: a sane upper bound for reading it whole. */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

interface SourceRecord {
  line: number;
  file?: string;
  /** Parses the record; throws an Error naming the field when it is invalid. */
  parse(): NativeCdr;
}

interface Source {
  records: AsyncGenerator<SourceRecord>;
  total: number;
  /** Progress so far, in the unit of total (bytes, or files for a directory). */
  done(): number;
  unit: "bytes" | "files";
}

async function firstNonEmptyLine(file: string): Promise<string | null> {
  for await (const { text } of readLines(file)) {
    if (text.trim() !== "") return text;
  }
  return null;
}

/** The format of a file by its extension, or by its first record for JSON lines. */
export async function detectFormat(file: string): Promise<CdrFileFormat> {
  const stat = await fs.promises.stat(file);
  if (stat.isDirectory()) return "freeswitch";
  const ext = path.extname(file).toLowerCase();
  if (ext === ".csv") return "asterisk";
  if (ext === ".json") return "freeswitch";
  const first = await firstNonEmptyLine(file);
  if (first !== null) {
    try {
      const doc = JSON.parse(first) as unknown;
      if (typeof doc === "object" && doc !== null && "variables" in doc) return "freeswitch";
    } catch {
      // not JSON: let the native parser report the line
    }
  }
  return "native";
}

function jsonLinesSource(file: string, size: number, parse: (text: string) => NativeCdr): Source {
  let bytes = 0;
  async function* records(): AsyncGenerator<SourceRecord> {
    for await (const { line, text, bytes: read } of readLines(file)) {
      bytes = read;
      if (text.trim() === "") continue;
      yield { line, parse: () => parse(text) };
    }
  }
  return { records: records(), total: size, done: () => bytes, unit: "bytes" };
}

function asteriskSource(file: string, size: number, options: AsteriskOptions, defaults: CdrDefaults): Source {
  let bytes = 0;
  async function* records(): AsyncGenerator<SourceRecord> {
    let text = "";
    let firstLine = 0;
    for await (const { line, text: physical, bytes: read } of readLines(file)) {
      bytes = read;
      if (text === "" && physical.trim() === "") continue;
      if (text === "") firstLine = line;
      text = text === "" ? physical : `${text}\n${physical}`;
      const fields = splitCsvRecord(text);
      if (fields === null && text.length < MAX_CSV_RECORD_CHARS) continue; // quoted field goes on
      const record = text;
      text = "";
      yield {
        line: firstLine,
        parse: () => {
          if (fields === null) throw new Error("unterminated quoted field");
          return toNativeCdr(asteriskToNative(fields, record, options), defaults);
        },
      };
    }
    if (text !== "") {
      const record = text;
      yield {
        line: firstLine,
        parse: () => {
          throw new Error(`unterminated quoted field in ${record.length} characters`);
        },
      };
    }
  }
  return { records: records(), total: size, done: () => bytes, unit: "bytes" };
}

async function readDocument(file: string): Promise<string> {
  const stat = await fs.promises.stat(file);
  if (stat.size > MAX_DOCUMENT_BYTES) throw new Error(`larger than ${MAX_DOCUMENT_BYTES} bytes`);
  return fs.promises.readFile(file, "utf8");
}

function freeswitchDirectorySource(dir: string, defaults: CdrDefaults): Source {
  // Names only (not contents) are listed up front: a few MB even for a million files.
  const names = fs
    .readdirSync(dir)
    .filter((n) => n.toLowerCase().endsWith(".json"))
    .sort();
  let done = 0;
  async function* records(): AsyncGenerator<SourceRecord> {
    for (const [i, name] of names.entries()) {
      let text: string | Error;
      try {
        text = await readDocument(path.join(dir, name));
      } catch (e) {
        text = e as Error;
      }
      done = i + 1;
      yield {
        line: i + 1,
        file: name,
        parse: () => {
          if (text instanceof Error) throw text;
          return parseCdrJson(modJsonCdrText(text), defaults, "freeswitch");
        },
      };
    }
  }
  return { records: records(), total: names.length, done: () => done, unit: "files" };
}

function singleDocumentSource(file: string, size: number, defaults: CdrDefaults): Source {
  let done = 0;
  async function* records(): AsyncGenerator<SourceRecord> {
    const text = await readDocument(file);
    done = size;
    yield { line: 1, parse: () => parseCdrJson(modJsonCdrText(text), defaults, "freeswitch") };
  }
  return { records: records(), total: size, done: () => done, unit: "bytes" };
}

async function openSource(file: string, format: CdrFileFormat, options: ImportOptions): Promise<Source> {
  const stat = await fs.promises.stat(file);
  const defaults: CdrDefaults = { billingGroupId: options.billingGroupId };
  if (stat.isDirectory()) {
    if (format !== "freeswitch")
      throw new Error(`${file} is a directory: only --format freeswitch reads a directory of .json documents`);
    return freeswitchDirectorySource(file, defaults);
  }
  switch (format) {
    case "asterisk":
      return asteriskSource(file, stat.size, options, defaults);
    case "freeswitch": {
      if (path.extname(file).toLowerCase() === ".json") {
        // One pretty-printed document, or JSON lines in a .json file: the first line tells.
        const first = (await firstNonEmptyLine(file))?.trim() ?? "";
        if (first === "{" || !first.endsWith("}")) return singleDocumentSource(file, stat.size, defaults);
      }
      return jsonLinesSource(file, stat.size, (text) => parseCdrJson(text, defaults, "freeswitch"));
    }
    case "native":
      return jsonLinesSource(file, stat.size, (text) => parseCdrJson(text, defaults, "any"));
  }
}

function errorText(error: unknown): string {
  if (error instanceof CdrRejectedError) return `${error.field}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Imports one CDR file (or directory) into the database through ingestCdrs. Records that fail to parse
 * are rejected with their line number; a batch the database refuses as a whole (e.g. one unknown
 * billing group) is retried record by record, so the good records land and only the bad ones are
 * reported.
 */
export async function importCdrFile(db: Db, file: string, options: ImportOptions = {}): Promise<ImportSummary> {
  const started = performance.now();
  const format = options.format ?? (await detectFormat(file));
  const batchSize = options.batchSize ?? 1000;
  const ingest: IngestFn = options.ingest ?? ingestCdrs;
  const progress = options.progress ?? (() => undefined);
  const source = await openSource(file, format, options);

  const summary: ImportSummary = {
    file,
    format,
    records: 0,
    inserted: 0,
    duplicates: 0,
    unrated: 0,
    rejected: 0,
    rejectedLines: [],
    seconds: 0,
    callsPerSecond: 0,
  };
  const reject = (record: { line: number; file?: string }, error: unknown) => {
    summary.rejected++;
    const listed = summary.rejectedLines;
    // Batches in flight finish in any order: keep the first ones in file order, not the first to be found.
    if (listed.length === MAX_REJECTED_LISTED && fileOrder(record, listed[listed.length - 1]) > 0) return;
    listed.push({ line: record.line, ...(record.file ? { file: record.file } : {}), error: errorText(error) });
    listed.sort(fileOrder);
    if (listed.length > MAX_REJECTED_LISTED) listed.pop();
  };
  const tally = (outcomes: IngestOutcome[]) => {
    for (const outcome of outcomes) {
      if (outcome.status === "created") {
        summary.inserted++;
        if (!outcome.call.rated) summary.unrated++;
      } else {
        summary.duplicates++;
      }
    }
  };

  type Item = { line: number; file?: string; cdr: NativeCdr };
  let batch: Item[] = [];
  const writeBatch = async (current: Item[]) => {
    try {
      tally(
        await ingest(
          db,
          current.map((b) => b.cdr),
        ),
      );
    } catch (batchError) {
      // An unreachable database is no fault of the records: stop (batches already stored stay; a rerun skips them).
      if (isDatabaseUnavailable(batchError)) throw batchError;
      // The batch was rolled back as a whole: find the bad records one by one.
      for (const item of current) {
        try {
          tally(await ingest(db, [item.cdr]));
        } catch (e) {
          if (isDatabaseUnavailable(e)) throw e;
          reject(item, e);
        }
      }
    }
    progress({ phase: `importing ${path.basename(file)} (${source.unit})`, done: source.done(), total: source.total });
  };
  // Batches in flight. Two batches may share a uuid: ingest claims it once, whichever commits first (ingest-cdrs.ts).
  const maxInFlight = Math.max(1, options.concurrency ?? (isEmbedded(db) ? 1 : 2));
  const inFlight = new Set<Promise<void>>();
  const settleAll = async () => {
    const results = await Promise.allSettled(inFlight);
    const failed = results.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
  };
  const flush = async () => {
    if (batch.length > 0) {
      const written = writeBatch(batch);
      batch = [];
      inFlight.add(written);
      void written.then(
        () => inFlight.delete(written),
        () => undefined, // kept in the set: settleAll reports it
      );
    }
    if (inFlight.size >= maxInFlight) {
      // Wait for a slot; on a failure, let the other batches finish before stopping.
      await Promise.race(inFlight).catch(() => settleAll());
    }
  };

  for await (const record of source.records) {
    summary.records++;
    let cdr: NativeCdr;
    try {
      cdr = record.parse();
    } catch (e) {
      reject(record, e);
      continue;
    }
    batch.push({ line: record.line, file: record.file, cdr });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  await settleAll();
  progress({ phase: `importing ${path.basename(file)} (${source.unit})`, done: source.total, total: source.total });

  summary.seconds = Math.round((performance.now() - started) / 10) / 100;
  const stored = summary.inserted + summary.duplicates;
  summary.callsPerSecond = summary.seconds > 0 ? Math.round(stored / summary.seconds) : stored;
  return summary;
}
