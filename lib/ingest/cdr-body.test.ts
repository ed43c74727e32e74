import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "@/lib/http/body";
import { ApiError } from "@/lib/errors/api-error";
import { modJsonCdrText, readCdrBody, repairDecodedJson } from "./cdr-body";
import { freeswitchToNative } from "./freeswitch";
import { switchUrlEncode } from "./testing/switch-url-encode";

const fixtureText = (name: string) => fs.readFileSync(path.join(__dirname, "fixtures", name), "utf8");
/** A document as mod_json_cdr serialises it (cJSON_PrintUnformatted: no whitespace). */
const compact = (name: string) => JSON.stringify(JSON.parse(fixtureText(name)));

function post(body: string, contentType?: string): Request {
  const headers: Record<string, string> = contentType ? { "content-type": contentType } : {};
  return new Request("http://127.0.0.1/v1/cdrs", { method: "POST", body, headers });
}

/**
 * A document after mod_json_cdr's encode=true and our decoding: the channel variables come out decoded once (the
 * post cannot tell their own `%XX` from the encoder's), which the FreeSWITCH mapping decodes anyway.
 */
function decodedOnce(doc: { variables: Record<string, unknown> }): unknown {
  const once = (v: unknown) => {
    if (typeof v !== "string") return v;
    try {
      return decodeURIComponent(v);
    } catch {
      return v;
    }
  };
  return { ...doc, variables: Object.fromEntries(Object.entries(doc.variables).map(([k, v]) => [k, once(v)])) };
}

async function problem(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (e) {
    if (e instanceof ApiError) return `${e.status} ${e.code} ${e.errors?.[0]?.param ?? ""}`.trim();
    throw e;
  }
}

describe("mod_json_cdr request bodies", () => {
  const json = compact("freeswitch-answered.json");
  const doc = JSON.parse(json) as { variables: Record<string, unknown> };

  it("reads encode=false: the JSON as application/json", async () => {
    expect(await readCdrBody(post(json, "application/json"))).toEqual(doc);
  });

  it("reads encode=true: cdr=<the JSON as switch_url_encode leaves it>, values with %0D%0A and %22 included", async () => {
    // switch_url_encode keeps the %XX of the URL-encoded variables (SDP line breaks, the quoted caller_id): one
    // decoding of the whole would put bare line breaks and quotes into JSON strings.
    const body = `cdr=${switchUrlEncode(json)}`;
    expect(body).toContain("%22%22Acme%20Sales%22%20%3C%2B12125550143%3E%22"); // "caller_id":"%22Acme...%3E"
    expect(() => JSON.parse(new URLSearchParams(body).get("cdr") ?? "")).toThrow();
    const read = await readCdrBody(post(body, "application/x-www-form-urlencoded"));
    expect(read).toEqual(decodedOnce(doc));
    expect((read as typeof doc).variables.caller_id).toBe('"Acme Sales" <+12125550143>');
    expect(freeswitchToNative(read)).toEqual(freeswitchToNative(doc));
  });

  it("reads encode=true for every fixture, and a body URL-encoded as a whole (curl --data-urlencode)", async () => {
    for (const name of ["freeswitch-unanswered.json", "freeswitch-outbound-gateway.json"]) {
      const text = compact(name);
      const form = post(`cdr=${switchUrlEncode(text)}`, "application/x-www-form-urlencoded");
      const read = await readCdrBody(form);
      expect(read, name).toEqual(decodedOnce(JSON.parse(text) as typeof doc));
      expect(freeswitchToNative(read), name).toEqual(freeswitchToNative(JSON.parse(text)));
    }
    const whole = post(`cdr=${encodeURIComponent(json)}`, "application/x-www-form-urlencoded; charset=utf-8");
    expect(await readCdrBody(whole)).toEqual(doc);
  });

  it("reads encode=base64, declared or under libcurl's default form type (disable-100-continue)", async () => {
    const withNote = { ...doc, note: ">>>???" };
    const base64 = Buffer.from(JSON.stringify(withNote)).toString("base64");
    expect(base64).toMatch(/\+.*\/|\/.*\+/); // sent as they are, not URL-encoded: `+` is no space here
    expect(await readCdrBody(post(`cdr=${base64}`, "application/x-www-form-base64-encoded"))).toEqual(withNote);
    expect(await readCdrBody(post(`cdr=${base64}`, "application/x-www-form-urlencoded"))).toEqual(withNote);
  });

  it("reads raw JSON labelled as a form (disable-100-continue drops the module's Content-Type)", async () => {
    expect(await readCdrBody(post(json, "application/x-www-form-urlencoded"))).toEqual(doc);
  });

  it("answers 422 for another type, a form without cdr, bad base64 or JSON, and 413 past the cap as sent", async () => {
    expect(await problem(readCdrBody(post(json, "text/plain")))).toBe("422 invalid_request_body content-type");
    expect(await problem(readCdrBody(post(json)))).toBe("422 invalid_request_body content-type");
    expect(await problem(readCdrBody(post("uuid=1", "application/x-www-form-urlencoded")))).toBe(
      "422 invalid_request_body cdr",
    );
    expect(await problem(readCdrBody(post("cdr=%%%", "application/x-www-form-base64-encoded")))).toBe(
      "422 invalid_request_body cdr",
    );
    expect(await problem(readCdrBody(post("cdr=%7B%22a", "application/x-www-form-urlencoded")))).toBe(
      "422 invalid_request_body (body)",
    );
    expect(await problem(readCdrBody(post("", "application/x-www-form-urlencoded")))).toBe(
      "422 invalid_request_body (body)",
    );
    const big = `cdr=${"A".repeat(MAX_BODY_BYTES)}`;
    expect(await problem(readCdrBody(post(big, "application/x-www-form-base64-encoded")))).toBe(
      "413 payload_too_large",
    );
  });
});

describe("decoding along the JSON grammar", () => {
  it("keeps valid JSON as it is", () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(repairDecodedJson(text)).toBe(text);
      }),
      { numRuns: 500 },
    );
  });

  it("escapes the quotes, backslashes and control characters a value's own encoding put into strings", () => {
    const decoded = '{"caller_id":""Acme" <+1>","sdp":"v=0\r\no=-","path":"C:\\x","json":"{"a":1}","n":[1,"b"]}';
    expect(JSON.parse(repairDecodedJson(decoded))).toEqual({
      caller_id: '"Acme" <+1>',
      sdp: "v=0\r\no=-",
      path: "C:\\x",
      json: '{"a":1}',
      n: [1, "b"],
    });
  });

  it("leaves text that is none of the encodings for the JSON parser to refuse", () => {
    expect(modJsonCdrText("not json")).toBe("not json");
    expect(modJsonCdrText('  {"a":1}\n')).toBe('{"a":1}');
  });
});
