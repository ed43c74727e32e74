import { describe, expect, it, vi } from "vitest";
import { createSessionToken, SESSION_TTL_SECONDS, verifySessionToken } from "@/lib/auth/session-token";
import { sessionTokenFromCookies } from "@/lib/auth/request-origin";
import { EDGE_HEADER, edgeToken } from "@/lib/http/edge-token";
import { isSecureRequest, sessionClearCookies, sessionSetCookie } from "./session-cookie";

process.env.SESSION_SECRET ??= "session-cookie-test-secret";

describe("session cookie", () => {
  it("over https: __Host- prefix, Secure, HttpOnly, SameSite=Lax, Path=/, expiring with the token", () => {
    const exp = Math.floor(Date.now() / 1000) + SESSION_TTL_SECONDS;
    const token = createSessionToken("ses_abc", exp);
    const cookie = sessionSetCookie(token, true);
    expect(cookie.startsWith(`__Host-cb_session=${token};`)).toBe(true);
    for (const attr of ["Secure", "HttpOnly", "SameSite=Lax", "Path=/", `Max-Age=${SESSION_TTL_SECONDS}`]) {
      expect(cookie.split("; ")).toContain(attr);
    }
    expect(cookie).not.toMatch(/Domain=/i); // __Host- forbids it
    expect(verifySessionToken(token)).toEqual({ sessionId: "ses_abc", expiresAt: exp });
    expect(verifySessionToken(token, exp)).toBeNull(); // expired
  });

  it("over plain http (development): a normal name without Secure", () => {
    const cookie = sessionSetCookie("t.s", false);
    expect(cookie.startsWith("cb_session=t.s;")).toBe(true);
    expect(cookie).not.toContain("Secure");
  });

  it("sign-out expires the cookie under every name it may have", () => {
    const cleared = sessionClearCookies(true);
    expect(cleared.map((c) => c.split("=")[0])).toEqual(["__Host-cb_session", "cb_session"]);
    for (const c of cleared) expect(c).toContain("Max-Age=0");
  });

  it("knows https from PUBLIC_BASE_URL or a rewritten X-Forwarded-Proto, never from the client's own", () => {
    const rewritten = { [EDGE_HEADER]: edgeToken() };
    expect(
      isSecureRequest(
        new Request("http://10.0.0.1/session", { headers: { ...rewritten, "x-forwarded-proto": "https" } }),
      ),
    ).toBe(true);
    expect(
      isSecureRequest(
        new Request("http://10.0.0.1/session", { headers: { ...rewritten, "x-forwarded-proto": "http" } }),
      ),
    ).toBe(false);
    // Not rewritten by lib/server/forwarded-headers.ts: the client's header, and Next's URL built from it.
    expect(
      isSecureRequest(new Request("https://portal.example/session", { headers: { "x-forwarded-proto": "https" } })),
    ).toBe(false);
    expect(isSecureRequest(new Request("http://127.0.0.1:3000/session"))).toBe(false);
    vi.stubEnv("PUBLIC_BASE_URL", "https://portal.example");
    expect(isSecureRequest(new Request("http://127.0.0.1:3000/session"))).toBe(true);
    vi.unstubAllEnvs();
  });
});

describe("reading the session cookie", () => {
  const both = "cb_session=plain.sig; __Host-cb_session=host.sig";
  it("over https reads only the __Host- cookie; over plain http only cb_session", () => {
    expect(sessionTokenFromCookies(both, true)).toBe("host.sig");
    expect(sessionTokenFromCookies(both, false)).toBe("plain.sig");
    expect(sessionTokenFromCookies("cb_session=plain.sig", true)).toBeNull();
    expect(sessionTokenFromCookies("__Host-cb_session=host.sig", false)).toBeNull();
  });

  it("ignores look-alike names and undecodable values", () => {
    expect(sessionTokenFromCookies("xcb_session=a; cb_sessionx=b", false)).toBeNull();
    expect(sessionTokenFromCookies("cb_session=%ZZ", false)).toBe("");
    expect(sessionTokenFromCookies(null, false)).toBeNull();
  });
});
