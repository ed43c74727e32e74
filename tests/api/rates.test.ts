import { describe, expect, it } from "vitest";
import { rateSchema } from "@/lib/rating/schemas";
import { callDetailSchema } from "@/lib/calls/schemas";
import { DECK_2_FROM } from "./fixtures/rating";
import { api, apiServers, type ApiServer } from "./helpers";

// Dated rate decks and per-prefix fees over HTTP: the `decks` fixture group (read-only).

describe.each(apiServers())("GET /v1/rates with dated decks on $engine", (server: ApiServer) => {
  it("answers the deck in force now (not the future one) with its fees and effectiveFrom", async () => {
    const res = await api(server, "/v1/rates?destination=%2B447700900123", { key: "readDecks" });
    expect(res.status).toBe(200);
    expect(rateSchema.strict().parse(res.body)).toEqual({
      destination: "+447700900123",
      matchedPrefix: "44",
      description: null,
      sellRate: 0.04,
      billingIncrement: "1/1",
      connectFee: 0.015,
      minCharge: 0.05,
      effectiveFrom: DECK_2_FROM,
      currency: "USD",
    });
    const plain = await api(server, "/v1/rates?destination=4930", { key: "readDecks" });
    expect(plain.body).toMatchObject({
      matchedPrefix: "49",
      description: "Germany",
      sellRate: 0.02,
      connectFee: null,
      minCharge: null,
      effectiveFrom: DECK_2_FROM,
    });
  });

  it("shows each part of the price in call detail: the late call with deck 1, the short one at deck 2's minimum", async () => {
    const calls = server.calls
      .filter((c) => c.group === "decks")
      .sort((x, y) => x.startTime.localeCompare(y.startTime));
    expect(calls).toHaveLength(2);
    const [late, short] = await Promise.all(
      calls.map(async (c) =>
        callDetailSchema.strict().parse((await api(server, `/v1/calls/${c.id}`, { key: "readDecks" })).body),
      ),
    );
    expect(late).toMatchObject({
      price: 0.1,
      sellRate: 0.05,
      billingIncrement: "60/60",
      billDuration: 120,
      connectFee: null,
      minCharge: null,
      usageCharge: 0.1,
      minChargeApplied: false,
    });
    expect(short).toMatchObject({
      price: 0.05,
      sellRate: 0.04,
      billingIncrement: "1/1",
      billDuration: 3,
      connectFee: 0.015,
      minCharge: 0.05,
      usageCharge: 0.002,
      minChargeApplied: true,
    });
  });
});

describe.each(apiServers())("OpenAPI for rates and call detail on $engine", (server: ApiServer) => {
  it("documents the fees, effectiveFrom and the price parts", async () => {
    const doc = (
      await api<{
        components: { schemas: Record<string, { properties: Record<string, unknown>; required?: string[] }> };
      }>(server, "/v1/openapi.json")
    ).body;
    const rate = doc.components.schemas.Rate;
    expect(Object.keys(rate.properties)).toEqual(expect.arrayContaining(["connectFee", "minCharge", "effectiveFrom"]));
    expect(rate.required).toEqual(expect.arrayContaining(["connectFee", "minCharge", "effectiveFrom"]));
    for (const name of ["CallDetail", "CallDetailWithCost"]) {
      expect(Object.keys(doc.components.schemas[name].properties)).toEqual(
        expect.arrayContaining(["connectFee", "minCharge", "usageCharge", "minChargeApplied"]),
      );
    }
  });
});
