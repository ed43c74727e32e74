import { z } from "zod";

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (UTF-16 code units). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** True for text PostgreSQL can take as a value: no NUL (`text` refuses it) and no lone surrogate (no UTF-8 form). */
export function isStorableText(text: string): boolean {
  return !text.includes("\u0000") && !LONE_SURROGATE.test(text);
}

/**
 * Adds the storable-text rules to a string schema. Every string a request brings that reaches SQL (a body field,
 * a query parameter) is built with this or with `storableText`: a NUL there made the database refuse the statement,
 * which answered 500 instead of naming the field (docs/contract.md §3).
 */
export function storable<T extends z.ZodString>(schema: T): T {
  return schema
    .refine((s) => !s.includes("\u0000"), { message: "must not contain a NUL character" })
    .refine((s) => !LONE_SURROGATE.test(s), { message: "must be valid Unicode (no lone surrogate)" });
}

/** Trimmed, non-empty, at most `max` characters, storable. Shared by native CDRs, their mappings and authorizations. */
export const storableText = (max: number) => storable(z.string().trim().min(1).max(max));
