import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { clientAddress, isSameOrigin, isSecureHeaders } from "@/lib/auth/request-origin";
import { EDGE_HEADER, edgeToken } from "@/lib/http/edge-token";
import { rewriteForwardedHeaders } from "./forwarded-headers";

/** A request as node:http hands it over: its peer and raw headers, rewritten in place. */
function rewritten(remoteAddress: string, headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const req = { socket: { remoteAddress }, headers: { ...headers } } as unknown as IncomingMessage;
  rewriteForwardedHeaders(req);
  return req.headers;
}

/** The rewritten headers as a route handler's Request sees them. */
function requestFrom(headers: IncomingHttpHeaders, method = "POST"): Request {
  const out = new Headers();
  for (const [k, v] of Object.entries(headers)) if (typeof v === "string") out.set(k, v);
  return new Request("http://127.0.0.1:3000/v1/authorizations", { method, headers: out });
}

const FORGED = {
  host: "127.0.0.1:3000",
  "x-forwarded-for": "198.51.100.7",
  "x-forwarded-host": "evil.example",
  "x-forwarded-proto": "https",
  "x-forwarded-port": "443",
  forwarded: "for=198.51.100.7;host=evil.example;proto=https",
  "x-real-ip": "198.51.100.7",
};

afterEach(() => vi.unstubAllEnvs());

describe("forwarded headers without TRUSTED_PROXIES", () => {
  it("are dropped: the client is the TCP peer, host and scheme come from the connection", () => {
    const h = rewritten("203.0.113.5", FORGED);
    expect(h["x-forwarded-for"]).toBe("203.0.113.5");
    for (const name of ["x-forwarded-host", "x-forwarded-proto", "x-forwarded-port", "forwarded", "x-real-ip"])
      expect(h[name], name).toBeUndefined();
    expect(h[EDGE_HEADER]).toBe(edgeToken());
    expect(h.host).toBe("127.0.0.1:3000");
    // ...so the forged host does not make evil.example's page same-origin, and https is not believed.
    const request = requestFrom({ ...h, origin: "http://evil.example" });
    expect(isSameOrigin(request, { allowMissing: false })).toBe(false);
    expect(isSameOrigin(requestFrom({ ...h, origin: "http://127.0.0.1:3000" }), { allowMissing: false })).toBe(true);
    expect(isSecureHeaders(request.headers)).toBe(false);
    expect(clientAddress(request.headers)).toBe("203.0.113.5");
  });

  it("give an IPv4 peer of a dual-stack socket as plain IPv4", () => {
    expect(rewritten("::ffff:192.0.2.10", {})["x-forwarded-for"]).toBe("192.0.2.10");
  });
});

describe("forwarded headers from TRUSTED_PROXIES", () => {
  it("are read only when the peer is a trusted proxy", () => {
    vi.stubEnv("TRUSTED_PROXIES", "10.0.0.0/8, ::1");
    const fromProxy = rewritten("10.1.2.3", {
      host: "app:3000",
      "x-forwarded-for": "203.0.113.9",
      "x-forwarded-host": "Billing.Example.com",
      "x-forwarded-proto": "https",
    });
    expect(fromProxy["x-forwarded-for"]).toBe("203.0.113.9");
    expect(fromProxy["x-forwarded-host"]).toBe("billing.example.com");
    expect(fromProxy["x-forwarded-proto"]).toBe("https");
    const request = requestFrom({ ...fromProxy, origin: "https://billing.example.com" });
    expect(isSameOrigin(request, { allowMissing: false })).toBe(true);
    expect(isSecureHeaders(request.headers)).toBe(true);
    expect(clientAddress(request.headers)).toBe("203.0.113.9");
    // The same headers from anyone else count for nothing.
    const direct = rewritten("203.0.113.50", FORGED);
    expect(direct["x-forwarded-for"]).toBe("203.0.113.50");
    expect(direct["x-forwarded-host"]).toBeUndefined();
    expect(direct["x-forwarded-proto"]).toBeUndefined();
  });

  it("take the client as the first address from the right that is not a trusted proxy, whatever the client prepended", () => {
    vi.stubEnv("TRUSTED_PROXIES", "10.0.0.0/8");
    // The client sent X-Forwarded-For: 192.0.2.1 itself; the edge proxy appended its peer; an inner proxy its own.
    const h = rewritten("10.0.0.2", { "x-forwarded-for": "192.0.2.1, 203.0.113.9, 10.0.0.1" });
    expect(h["x-forwarded-for"]).toBe("203.0.113.9");
    // A proxy that wrote no address: the proxy itself is the client (its bucket, not a made-up one).
    expect(rewritten("10.0.0.2", { "x-forwarded-for": "unknown" })["x-forwarded-for"]).toBe("10.0.0.2");
    expect(rewritten("10.0.0.2", {})["x-forwarded-for"]).toBe("10.0.0.2");
  });

  it("take the scheme and host the outermost trusted proxy wrote, not what the client sent before it", () => {
    vi.stubEnv("TRUSTED_PROXIES", "10.0.0.0/8");
    // One proxy that appends to the client's own values: its value is the last one.
    const appended = rewritten("10.0.0.2", {
      "x-forwarded-for": "203.0.113.9",
      "x-forwarded-proto": "https, http",
      "x-forwarded-host": "evil.example, billing.example.com",
    });
    expect(appended["x-forwarded-proto"]).toBe("http");
    expect(appended["x-forwarded-host"]).toBe("billing.example.com");
    // Two proxies that each appended: the outer one's, which saw the client's request.
    const twoHops = rewritten("10.0.0.2", {
      "x-forwarded-for": "203.0.113.9, 10.0.0.1",
      "x-forwarded-proto": "http, https, http",
    });
    expect(twoHops["x-forwarded-proto"]).toBe("https");
    // Malformed values are dropped, not passed on.
    const junk = rewritten("10.0.0.2", { "x-forwarded-host": "a b/c", "x-forwarded-proto": "gopher" });
    expect(junk["x-forwarded-host"]).toBeUndefined();
    expect(junk["x-forwarded-proto"]).toBeUndefined();
  });

  it("refuse a malformed setting", async () => {
    const { trustedProxies } = await import("@/lib/config/env");
    vi.stubEnv("TRUSTED_PROXIES", "10.0.0.0/8, proxy.internal");
    expect(() => trustedProxies()).toThrow(/TRUSTED_PROXIES/);
    vi.stubEnv("TRUSTED_PROXIES", "loopback, 192.168.0.0/16, fd00::/8");
    expect(trustedProxies()?.("::1", 0)).toBe(true);
    expect(trustedProxies()?.("192.168.7.7", 0)).toBe(true);
    expect(trustedProxies()?.("8.8.8.8", 0)).toBe(false);
  });
});

describe("PUBLIC_BASE_URL", () => {
  it("is the origin: its scheme and host win over any forwarded header, trusted or not", () => {
    vi.stubEnv("PUBLIC_BASE_URL", "https://billing.example.com/");
    vi.stubEnv("TRUSTED_PROXIES", "10.0.0.0/8");
    for (const peer of ["10.0.0.2", "203.0.113.5"]) {
      const h = rewritten(peer, FORGED);
      expect(h["x-forwarded-host"]).toBe("billing.example.com");
      expect(h["x-forwarded-proto"]).toBe("https");
      const ok = requestFrom({ ...h, origin: "https://billing.example.com" });
      expect(isSameOrigin(ok, { allowMissing: false })).toBe(true);
      expect(isSecureHeaders(ok.headers)).toBe(true);
      // Another scheme or host, the server's own address included, is another origin.
      for (const origin of ["http://billing.example.com", "https://evil.example", "http://127.0.0.1:3000"])
        expect(isSameOrigin(requestFrom({ ...h, origin }), { allowMissing: false }), origin).toBe(false);
    }
  });
});

describe("headers that did not go through the rewrite", () => {
  it("are never read: a client's X-Forwarded-* then count for nothing", () => {
    const raw = requestFrom({ ...FORGED, origin: "http://evil.example", [EDGE_HEADER]: "guessed" });
    expect(isSameOrigin(raw, { allowMissing: false })).toBe(false);
    expect(isSecureHeaders(raw.headers)).toBe(false);
    expect(clientAddress(raw.headers)).toBeNull();
    expect(isSameOrigin(requestFrom({ ...FORGED, origin: "http://127.0.0.1:3000" }), { allowMissing: false })).toBe(
      true,
    );
  });
});
