const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

/** RFC 4180 quoting, and no spreadsheet formulas: text starting with = + - @ is defused with a quote mark. */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
