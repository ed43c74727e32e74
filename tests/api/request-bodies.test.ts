import { describe, expect, it } from "vitest";
import { OPERATIONS } from "@/lib/api/operations";
import type { Scope } from "@/lib/auth/scopes";
import { api, apiServers, type KeyName } from "./helpers";

// docs/contract.md §3 "Request bodies": apiRoute parses every JSON body from its operation's schema, and every route
// answers an unprocessable one with the same 422.

/** A platform key holding each scope a JSON-bodied operation needs (platform: no group check comes first). */
const KEY_FOR: Partial<Record<Scope, KeyName>> = {
  "accounts:write": "platformAccounts",
  "payments:write": "platformProvision",
  "alerts:write": "platformAlerts",
  "calls:read": "platformRead",
  "cdrs:write": "ingestPlatform",
  "keys:write": "platformKeys",
  "rates:write": "platformRates",
  "limits:write": "platformLimits",
};

const JSON_BODIED = OPERATIONS.filter((op) => op.body !== undefined && op.otherBodies === undefined);

describe.each(apiServers())("request bodies on $engine", (server) => {
  const pathOf = (path: string) =>
    path
      .replace("/v1/accounts/{id}", `/v1/accounts/${server.groups.scratch.id}`)
      .replace("{id}", path.startsWith("/v1/suppliers") ? "sup_none" : "we_none");

  it("every JSON-bodied operation answers 422 invalid_request_body for a body it cannot use", async () => {
    expect(JSON_BODIED.length).toBeGreaterThanOrEqual(13);
    for (const op of JSON_BODIED) {
      const key = KEY_FOR[op.scope as Scope];
      expect(key, op.operationId).toBeDefined();
      for (const [body, headers] of [
        ["not json", { "content-type": "application/json" }],
        ['{"name":"x"}', { "content-type": "text/plain" }],
        ["", { "content-type": "application/json" }],
        ["[1]", { "content-type": "application/json" }],
      ] as const) {
        const res = await api<{ code: string; title: string }>(server, pathOf(op.path), {
          key,
          method: op.method,
          body,
          headers,
        });
        expect([res.status, res.body.code, res.body.title], `${op.operationId} ${JSON.stringify(body)}`).toEqual([
          422,
          "invalid_request_body",
          "Unprocessable request body",
        ]);
      }
    }
  });
});
