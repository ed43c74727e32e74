import fs from "node:fs";
import { StringDecoder } from "node:string_decoder";
import type { z } from "zod";
import { freeswitchToNative, isFreeswitchCdr } from "./freeswitch";
import { nativeCdrSchema, type NativeCdr, type NativeCdrInput } from "./schemas";

// Line-level building blocks of the bulk import: a streaming line reader with byte progress, and the
// parse of one JSON line (native CDR, or a FreeSWITCH document recognised by its variables object).

export interface TextLine {
  /** 1-based physical line number. */
  line: number;
  text: string;
  /** Bytes of the file consumed so far, this line included. */
  bytes: number;
}

/**
 * Yields the lines of a file one at a time without holding more than one read chunk and one line
 * in memory; the stream is pulled, so a slow consumer slows the reading (constant memory).
 */
export async function* readLines(file: string, maxLineBytes = 16 * 1024 * 1024): AsyncGenerator<TextLine> {
  const stream = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
  const decoder = new StringDecoder("utf8");
  let pending = "";
  let pendingBytes = 0;
  let consumed = 0;
  let line = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        const part = chunk.subarray(start, nl);
        consumed += part.length + 1;
        let text = pending + decoder.write(part) + decoder.end();
        pending = "";
        pendingBytes = 0;
        line++;
        if (line === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        if (text.endsWith("\r")) text = text.slice(0, -1);
        yield { line, text, bytes: consumed };
        start = nl + 1;
      }
      const rest = chunk.subarray(start);
      consumed += rest.length;
      pendingBytes += rest.length;
      if (pendingBytes > maxLineBytes) throw new Error(`line ${line + 1} is longer than ${maxLineBytes} bytes`);
      pending += decoder.write(rest);
    }
    const last = pending + decoder.end();
    if (last.length > 0) {
      line++;
      let text = line === 1 && last.charCodeAt(0) === 0xfeff ? last.slice(1) : last;
      if (text.endsWith("\r")) text = text.slice(0, -1);
      yield { line, text, bytes: consumed };
    }
  } finally {
    stream.destroy();
  }
}

/** The first issue of a failed parse as "field: message" (the field an operator has to fix). */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "record"}: ${issue.message}`)
    .join("; ");
}

export interface CdrDefaults {
  /**
   * The billing group of every record (`cdrs import --group`). It wins over a record's accountcode:
   * a PBX writes its own codes there (e.g. ast_h323) that map to no group. A record naming another
   * billingGroupId is refused rather than moved.
   */
  billingGroupId?: string | null;
}

/** Validates a mapped record against the native schema, filling the defaults first. Throws naming the field. */
export function toNativeCdr(input: NativeCdrInput | Record<string, unknown>, defaults: CdrDefaults = {}): NativeCdr {
  const record = { ...input } as Record<string, unknown>;
  if (defaults.billingGroupId) {
    if (record.billingGroupId != null && record.billingGroupId !== defaults.billingGroupId) {
      throw new Error(
        `billingGroupId: the record names ${String(record.billingGroupId)}, not the --group ${defaults.billingGroupId}`,
      );
    }
    // The accountcode is kept as reported; billingGroupId takes precedence over it at ingest.
    record.billingGroupId = defaults.billingGroupId;
  }
  const parsed = nativeCdrSchema.safeParse(record);
  if (!parsed.success) throw new Error(describeZodError(parsed.error));
  return parsed.data;
}

/** One JSON line: a native CDR or, as POST /v1/cdrs accepts, a FreeSWITCH mod_json_cdr document (mapped). */
export function parseCdrJson(
  text: string,
  defaults: CdrDefaults = {},
  expect: "any" | "freeswitch" = "any",
): NativeCdr {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`not valid JSON (${(e as Error).message})`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new Error("a CDR must be a JSON object");
  if (isFreeswitchCdr(doc)) {
    return toNativeCdr(freeswitchToNative(doc), defaults);
  }
  if (expect === "freeswitch")
    throw new Error("variables: not a FreeSWITCH mod_json_cdr document (no variables object)");
  return toNativeCdr(doc as Record<string, unknown>, defaults);
}
