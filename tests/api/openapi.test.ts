import fs from "node:fs";
import path from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { http } from "@/lib/testing/http-client";
import { api, apiServers } from "./helpers";

/** Every route file under app/v1 as an OpenAPI path: app/v1/calls/[id]/route.ts -> /v1/calls/{id}. */
function routePaths(): string[] {
  const root = path.resolve(__dirname, "../../app");
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!/^\[\[?\.\.\./.test(entry.name)) walk(full); // a catch-all 404 is not an endpoint
      } else if (/^route\.(ts|tsx|js)$/.test(entry.name)) {
        out.push(
          `/${path
            .relative(root, dir)
            .split(path.sep)
            .map((s) => s.replace(/^\[(.+)\]$/, "{$1}"))
            .join("/")}`,
        );
      }
    }
  };
  walk(path.join(root, "v1"));
  return out.sort();
}

describe.each(apiServers())("OpenAPI on $engine", (server) => {
  it("serves a valid OpenAPI 3.1 document without a key", async () => {
    const res = await api<Record<string, unknown>>(server, "/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.body.openapi).toBe("3.1.0");
    // A real validator: structure, $refs and schemas.
    await expect(SwaggerParser.validate(structuredClone(res.body) as never)).resolves.toBeTruthy();
  });

  it("covers every /v1 route with its parameters, errors and bearer auth", async () => {
    const doc = (
      await api<{
        paths: Record<
          string,
          Record<string, { parameters?: { name: string }[]; responses: Record<string, unknown>; security?: unknown[] }>
        >;
        components: { securitySchemes: Record<string, { scheme?: string }> };
      }>(server, "/v1/openapi.json")
    ).body;
    expect(Object.keys(doc.paths).sort()).toEqual(expect.arrayContaining(routePaths()));
    expect(routePaths().every((p) => p in doc.paths)).toBe(true);
    expect(doc.components.securitySchemes.bearerAuth.scheme).toBe("bearer");
    const list = doc.paths["/v1/calls"].get;
    expect(list.parameters!.map((p) => p.name)).toEqual(
      expect.arrayContaining([
        "pageSize",
        "cursor",
        "startTime[gte]",
        "startTime[lte]",
        "direction",
        "to",
        "hangupCause",
      ]),
    );
    expect(doc.paths["/v1/rates"].get.parameters!.map((p) => p.name)).toContain("destination");
    for (const [p, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (p === "/v1/openapi.json") continue;
        expect(Object.keys(op.responses), `${method} ${p}`).toEqual(
          expect.arrayContaining(["401", "403", "429", "500"]),
        );
      }
    }
  });

  it("the /docs page renders the reference from the document", async () => {
    const res = await http(server.baseUrl, "/docs", { redirect: "follow" });
    const html = res.text;
    expect(res.status).toBe(200);
    for (const p of [
      "/v1/calls",
      "/v1/calls/{id}",
      "/v1/balances",
      "/v1/rates",
      "/v1/accounts",
      "CallDetail",
      "billing_group_required",
    ]) {
      expect(html).toContain(p);
    }
    // Rendered per request, so the CSP nonce reaches every script (a prerendered page would be blocked).
    const nonce = /'nonce-([^']+)'/.exec(res.headers.get("content-security-policy") ?? "")?.[1];
    expect(nonce, "the proxy's Content-Security-Policy on /docs").toBeTruthy();
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
  });
});
