import { isJsonContentType, parseJsonText, readBodyText, readJsonBody } from "@/lib/http/body";
import { ApiError } from "@/lib/errors/api-error";

// The body of POST /v1/cdrs as FreeSWITCH's mod_json_cdr posts it (docs/contract.md §5, README "FreeSWITCH").
// json_cdr.conf.xml `encode` decides: false posts the JSON as application/json; true posts `cdr=<URL-encoded
// JSON>` as application/x-www-form-urlencoded; base64 posts `cdr=<base64 JSON>` as
// application/x-www-form-base64-encoded. With `disable-100-continue` the module swaps its header list for a
// lone `Expect:`, so libcurl labels every body application/x-www-form-urlencoded, raw JSON included: then the
// body itself says what it is.

const EXPECTED = 'one CDR or `{ "cdrs": [...] }`';
const FORM = "application/x-www-form-urlencoded";
const BASE64_FORM = "application/x-www-form-base64-encoded";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function invalid(detail: string, param: string, message: string): ApiError {
  return new ApiError("invalid_request_body", detail, [{ param, message }]);
}

/**
 * Repairs the JSON text of an `encode=true` post after its one URL-decoding. FreeSWITCH's encoder
 * (switch_url_encode) leaves every `%XX` already in the text as it is, and the channel variables are
 * URL-encoded already (encode-values), so a variable's `%22` or `%0D%0A` decodes, with the JSON around it, into
 * a bare quote or line break inside a string. Along the JSON grammar: inside a string a quote ends it only where
 * the grammar can go on (`:` after a key; `,` then a key, `}` or `]` after a value), a backslash starts an escape
 * only before a valid one; other quotes, backslashes and control characters are content, escaped. Valid JSON
 * comes out as it went in.
 */
export function repairDecodedJson(text: string): string {
  const out: string[] = [];
  const stack: ("object" | "array")[] = [];
  /** Whether the next string in the current object is a key. */
  let expectKey = false;
  const nextNonSpace = (from: number): number => {
    let j = from;
    while (j < text.length && " \t\r\n".includes(text[j])) j++;
    return j;
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c !== '"') {
      if (c === "{") {
        stack.push("object");
        expectKey = true;
      } else if (c === "[") {
        stack.push("array");
      } else if (c === "}" || c === "]") {
        stack.pop();
        expectKey = false;
      } else if (c === ",") {
        expectKey = stack.at(-1) === "object";
      } else if (c === ":") {
        expectKey = false;
      }
      out.push(c);
      i++;
      continue;
    }
    // A string: its key or value role decides where it may end.
    const isKey = expectKey && stack.at(-1) === "object";
    out.push('"');
    i++;
    for (;;) {
      if (i >= text.length) break;
      const s = text[i];
      if (s === "\\") {
        const e = text[i + 1];
        if (e !== undefined && '"\\/bfnrt'.includes(e)) {
          out.push(s, e);
          i += 2;
        } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out.push(text.slice(i, i + 6));
          i += 6;
        } else {
          out.push("\\\\");
          i++;
        }
        continue;
      }
      if (s === '"') {
        const j = nextNonSpace(i + 1);
        const next = text[j];
        const top = stack.at(-1);
        const ends = isKey
          ? next === ":"
          : next === undefined
            ? top === undefined
            : (next === "}" && top === "object") ||
              (next === "]" && top === "array") ||
              (next === "," && (top === "array" || text[nextNonSpace(j + 1)] === '"'));
        if (ends) {
          out.push('"');
          i++;
          break;
        }
        out.push('\\"');
        i++;
        continue;
      }
      const code = s.charCodeAt(0);
      out.push(code < 0x20 ? `\\u${code.toString(16).padStart(4, "0")}` : s);
      i++;
    }
    expectKey = false;
  }
  return out.join("");
}

/** The `cdr` field of a form body, undecoded (base64 keeps `+` and `/` as they are). */
function cdrField(body: string): string {
  const field = body.split("&").find((part) => part.startsWith("cdr="));
  if (field === undefined) {
    throw invalid(
      "A form body must be mod_json_cdr's `cdr=<CDR JSON>` (json_cdr.conf.xml encode=true or base64).",
      "cdr",
      "missing",
    );
  }
  return field.slice("cdr=".length);
}

/** Base64 text decoded, or null when it is not base64 (or, unless `declared`, does not decode to JSON). */
function fromBase64(value: string, declared: boolean): string | null {
  // Base64 has no `%`: one means a client URL-encoded it (mod_json_cdr sends it as it is).
  const text = value.includes("%") ? (new URLSearchParams(`v=${value}`).get("v") ?? "") : value;
  const compact = text.replace(/\s+/g, "");
  if (!BASE64.test(compact) || compact.length % 4 === 1) return null;
  const decoded = Buffer.from(compact, "base64").toString("utf8");
  return declared || /^\s*[{[]/.test(decoded) ? decoded : null;
}

/**
 * The JSON text of a mod_json_cdr post or error file as its `encode` setting left it: raw JSON; URL-encoded
 * (encode=true, decoded along the JSON grammar: see repairDecodedJson); or base64. `base64` says the sender
 * declared it (application/x-www-form-base64-encoded); otherwise the text decides (`{`, `%7B` or base64).
 * Text that is none of these comes back as it is, for the JSON parser to refuse.
 */
export function modJsonCdrText(encoded: string, options: { base64?: boolean } = {}): string {
  const value = encoded.trim();
  if (!options.base64) {
    if (value.startsWith("{") || value.startsWith("[")) return value;
    if (/^%(7B|5B)/i.test(value)) {
      // A form field: `+` is a space (FreeSWITCH writes %2B for a plus), the rest percent-decoded.
      const decoded = new URLSearchParams(`v=${value}`).get("v") ?? "";
      try {
        JSON.parse(decoded);
        return decoded; // a client that encoded the JSON as a whole (curl --data-urlencode)
      } catch {
        return repairDecodedJson(decoded);
      }
    }
  }
  const decoded = fromBase64(value, options.base64 === true);
  if (decoded !== null) return decoded;
  if (options.base64) {
    throw invalid("The `cdr` field is not base64 (json_cdr.conf.xml encode=base64).", "cdr", "not base64");
  }
  return value;
}

function mediaTypeOf(contentType: string | null): string {
  return contentType?.split(";")[0]?.trim().toLowerCase() ?? "";
}

/**
 * POST /v1/cdrs's body: JSON (application/json or +json), or mod_json_cdr's forms (module header above).
 * 413 past the size cap (the bytes as sent); 422 `invalid_request_body` for another type, a form without `cdr`, or
 * text that is not JSON once decoded.
 */
export async function readCdrBody(request: Request): Promise<unknown> {
  const contentType = request.headers.get("content-type");
  if (isJsonContentType(contentType)) return readJsonBody(request, { expected: EXPECTED });
  const mediaType = mediaTypeOf(contentType);
  if (mediaType !== FORM && mediaType !== BASE64_FORM) {
    throw invalid(
      "The request body must be JSON (`Content-Type: application/json`) or mod_json_cdr's form (`cdr=...`).",
      "content-type",
      "expected application/json or application/x-www-form-urlencoded",
    );
  }
  const body = (await readBodyText(request)).trim();
  // disable-100-continue: raw JSON under libcurl's default form type.
  if (body.startsWith("{")) return parseJsonText(body, { expected: EXPECTED });
  if (body === "") return parseJsonText(body, { expected: EXPECTED });
  return parseJsonText(modJsonCdrText(cdrField(body), { base64: mediaType === BASE64_FORM }), { expected: EXPECTED });
}
