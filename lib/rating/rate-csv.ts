import { z } from "zod";
import { rateRowSchema, type RateRow } from "./schemas";

/** A bad line in a rate deck: the message names the line, so an operator can fix the file. */
export class RateCsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

const COLUMNS = ["prefix", "rate", "increment", "description", "connectFee", "minCharge"] as const;
type Column = (typeof COLUMNS)[number];
/** Header names are case-insensitive: connectfee, ConnectFee and connectFee are one column. */
const COLUMN_BY_LOWER = new Map<string, Column>(COLUMNS.map((c) => [c.toLowerCase(), c]));
const STANDARD = ["prefix", "rate", "increment", "description"];
const OPTIONAL_TEXT = new Set<Column>(["description", "connectFee", "minCharge"]);

/** Splits one CSV line; fields may be double-quoted with "" as an escaped quote. */
export function splitCsvLine(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let value = "";
      i++;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new RangeError("unterminated quoted field");
        value += line.slice(i, q);
        if (line[q + 1] === '"') {
          value += '"';
          i = q + 2;
        } else {
          i = q + 1;
          break;
        }
      }
      fields.push(value);
      if (i < line.length && line[i] !== ",") throw new RangeError("text after a quoted field");
    } else {
      const comma = line.indexOf(",", i);
      const end = comma < 0 ? line.length : comma;
      fields.push(line.slice(i, end));
      i = end;
    }
    if (i >= line.length) return fields;
    i++; // the comma
  }
}

/**
 * Parses a rate deck `prefix,rate,increment[,description][,connectFee][,minCharge]` with a header line
 * (columns in any order, matched by name; a blank description or fee is none). Blank lines are skipped. Throws RateCsvError naming the first bad line;
 * a prefix listed twice is refused rather than letting one line silently win.
 */
// The common line of a deck in the standard column order, checked without zod; anything else
// (quotes, other order, errors) takes the general path, which also words the error.
const FAST_LINE = /^(\d{1,20}),(\d+(?:\.\d{1,6})?),(\d{1,5})\/(\d{1,5})(?:,([^",]*))?$/;

export function parseRateCsv(text: string): RateRow[] {
  const lines = text.split(/\r?\n/);
  let header: Column[] | null = null;
  let standardOrder = false;
  const rows: RateRow[] = [];
  const seen = new Map<string, number>();
  for (let n = 0; n < lines.length; n++) {
    const lineNo = n + 1;
    const line = n === 0 ? lines[n].replace(/^\uFEFF/, "") : lines[n];
    if (line.trim() === "") continue;
    if (header !== null && standardOrder) {
      const m = FAST_LINE.exec(line);
      if (m && Number(m[4]) >= 1 && (m[5] === undefined || header.length === 4)) {
        const [, prefix, rate, min, interval, rawDescription] = m;
        const first = seen.get(prefix);
        if (first !== undefined) throw new RateCsvError(lineNo, `prefix ${prefix} is already on line ${first}`);
        seen.set(prefix, lineNo);
        const description = rawDescription?.trim();
        const row: RateRow = { prefix, rate, increment: { min: Number(min), interval: Number(interval) } };
        if (description && description.length <= 200) row.description = description;
        else if (description)
          throw new RateCsvError(lineNo, "description: Too big: expected string to have <=200 characters");
        rows.push(row);
        continue;
      }
    }
    let fields: string[];
    try {
      fields = splitCsvLine(line);
    } catch (e) {
      throw new RateCsvError(lineNo, (e as Error).message);
    }
    if (header === null) {
      const names = fields.map((f) => {
        const name = COLUMN_BY_LOWER.get(f.trim().toLowerCase());
        if (!name) {
          throw new RateCsvError(
            lineNo,
            `unknown column "${f.trim()}" in the header (expected prefix,rate,increment[,description][,connectFee][,minCharge])`,
          );
        }
        return name;
      });
      for (const required of ["prefix", "rate", "increment"] as const) {
        if (!names.includes(required)) throw new RateCsvError(lineNo, `the header lacks the column "${required}"`);
      }
      if (new Set(names).size !== names.length) throw new RateCsvError(lineNo, "a column is named twice in the header");
      header = names;
      standardOrder = names.every((name, i) => name === STANDARD[i]);
      continue;
    }
    if (fields.length > header.length)
      throw new RateCsvError(lineNo, `${fields.length} fields, the header has ${header.length}`);
    const record: Partial<Record<Column, string>> = {};
    header.forEach((name, i) => {
      if (fields[i] !== undefined && !(OPTIONAL_TEXT.has(name) && fields[i].trim() === "")) record[name] = fields[i];
    });
    const parsed = rateRowSchema.safeParse(record);
    if (!parsed.success) throw new RateCsvError(lineNo, formatIssue(parsed.error.issues[0]));
    const first = seen.get(parsed.data.prefix);
    if (first !== undefined) throw new RateCsvError(lineNo, `prefix ${parsed.data.prefix} is already on line ${first}`);
    seen.set(parsed.data.prefix, lineNo);
    rows.push(parsed.data);
  }
  if (header === null)
    throw new RateCsvError(
      1,
      "the file is empty (expected a header prefix,rate,increment[,description][,connectFee][,minCharge])",
    );
  return rows;
}

function formatIssue(issue: z.core.$ZodIssue): string {
  const field = issue.path.map(String).join(".");
  return field ? `${field}: ${issue.message}` : issue.message;
}
