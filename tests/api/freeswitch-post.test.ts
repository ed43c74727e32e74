import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { generateApiKeySecret } from "@/lib/auth/api-key-format";
import { switchUrlEncode } from "@/lib/ingest/testing/switch-url-encode";
import { api, apiServers, type ApiServer, type KeyName } from "./helpers";

// FreeSWITCH mod_json_cdr as it posts (docs/contract.md §5, README "FreeSWITCH: posting CDRs with mod_json_cdr"):
// HTTP Basic with the key as password, and its encode=false/true/base64 bodies, over HTTP on both engines.

interface Problem {
  code: string;
  status: number;
  errors?: { param: string; message: string }[];
}

const FORM = "application/x-www-form-urlencoded";

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`, "utf8").toString("base64")}`;

/** The gateway B-leg fixture with a fresh uuid, charged to the poster's group (no accountcode), compact as cJSON writes it. */
function freeswitchDoc(): { uuid: string; json: string } {
  const doc = JSON.parse(
    fs.readFileSync(path.join(__dirname, "../../lib/ingest/fixtures/freeswitch-outbound-gateway.json"), "utf8"),
  ) as { variables: Record<string, string> };
  const uuid = `fs-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  doc.variables = { ...doc.variables, uuid, accountcode: "", sip_gateway_name: "" };
  return { uuid, json: JSON.stringify(doc) };
}

describe.each(apiServers())("mod_json_cdr posts on $engine", (server: ApiServer) => {
  const key = (name: KeyName) => server.keys[name];
  const post = (body: string, contentType: string, authorization = basic("freeswitch", key("ingestScratch"))) =>
    api<Record<string, unknown>>(server, "/v1/cdrs?uuid=ignored", {
      authorization,
      body,
      headers: { "content-type": contentType, "user-agent": "freeswitch-json/1.0" },
    });

  it("takes the key as the HTTP Basic password (any user name) for a raw JSON post, encode=false", async () => {
    const { uuid, json } = freeswitchDoc();
    const first = await post(json, "application/json");
    expect(first.status, first.text).toBe(201);
    // the caller, not the gateway's login in sip_from_user
    expect(first.body).toMatchObject({ uuid, from: "+493012345678", to: "4420794601234" });
    expect(first.body.billingGroupId).toBe(server.groups.scratch.id);
    // curl -u cdr:$KEY --data-binary @cdr.json: raw JSON under curl's default form type; a replay answers 200
    const replay = await post(json, FORM, basic("cdr", key("ingestScratch")));
    expect(replay.status, replay.text).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  });

  it("reads encode=true (cdr=<JSON as switch_url_encode leaves it>) and encode=base64", async () => {
    const encoded = freeswitchDoc();
    const form = await post(`cdr=${switchUrlEncode(encoded.json)}`, FORM);
    expect(form.status, form.text).toBe(201);
    expect(form.body).toMatchObject({ uuid: encoded.uuid, from: "+493012345678", billDuration: 240 });

    const b64 = freeswitchDoc();
    const base64 = await post(
      `cdr=${Buffer.from(b64.json).toString("base64")}`,
      "application/x-www-form-base64-encoded",
    );
    expect(base64.status, base64.text).toBe(201);
    expect(base64.body).toMatchObject({ uuid: b64.uuid });
  });

  it("answers a form's problems like JSON's: 422 without cdr or for bad JSON, 413 past 5 MiB as sent", async () => {
    const noCdr = await post("uuid=x", FORM);
    expect(noCdr.status).toBe(422);
    expect((noCdr.body as unknown as Problem).errors?.[0].param).toBe("cdr");
    const bad = await post(`cdr=${switchUrlEncode('{"variables":{')}`, FORM);
    expect(bad.status).toBe(422);
    expect((bad.body as unknown as Problem).code).toBe("invalid_request_body");
    const huge = await post(`cdr=${"%20".repeat(2 * 1024 * 1024)}`, FORM);
    expect(huge.status).toBe(413);
    expect(await post("{}", "text/plain").then((r) => r.status)).toBe(422);
  });

  it("refuses wrong Basic credentials with 401 and both challenges; a key without cdrs:write with 403", async () => {
    const { json } = freeswitchDoc();
    const cases = {
      unknown: basic("freeswitch", generateApiKeySecret()),
      revoked: basic("freeswitch", key("revokedA")),
      keyAsUser: basic(key("ingestScratch"), ""),
      notBase64: "Basic ***",
      noColon: `Basic ${Buffer.from(key("ingestScratch")).toString("base64")}`,
    };
    for (const [name, authorization] of Object.entries(cases)) {
      const res = await post(json, "application/json", authorization);
      expect(res.status, name).toBe(401);
      expect(res.headers.get("www-authenticate"), name).toMatch(/^Bearer realm="v1", Basic realm="v1"/);
    }
    const missing = await api(server, "/v1/cdrs", { body: json });
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toContain("Basic");
    expect((await post(json, "application/json", basic("freeswitch", key("readScratch")))).status).toBe(403);
  });

  it("refuses Basic on every other route with 401 and a Bearer challenge only", async () => {
    const authorization = basic("freeswitch", key("ingestScratch"));
    for (const [p, body] of [
      ["/v1/calls", undefined],
      ["/v1/balances", undefined],
      ["/v1/authorizations", { uuid: "basic-refused", destination: "4420" }],
    ] as const) {
      const res = await api<Problem>(server, p, { authorization, body });
      expect(res.status, p).toBe(401);
      expect(res.body.code, p).toBe("unauthorized");
      expect(res.headers.get("www-authenticate"), p).toBe('Bearer realm="v1"');
    }
  });

  it("refuses a Basic-authenticated post from another site's page (a browser resends Basic credentials)", async () => {
    const { json } = freeswitchDoc();
    const res = await api<Problem>(server, "/v1/cdrs", {
      authorization: basic("freeswitch", key("ingestScratch")),
      body: `cdr=${encodeURIComponent(json)}`,
      headers: { "content-type": FORM, origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("cross_origin");
  });
});
