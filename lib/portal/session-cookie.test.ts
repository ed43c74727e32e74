import { describe, expect, it } from "vitest";
import { createSessionToken, SESSION_TTL_SECONDS, verifySessionToken } from "@/lib/auth/session-token";
import { isSecureRequest, sessionClearCookies, sessionSetCookie } from "./session-cookie";
import { isSameOriginPost, safeReturnPath } from "./sign-in";

process.env.SESSION_SECRET ??= "session-cookie-test-secret";

describe("session cookie", () => {
  it("over https: __Host- prefix, Secure, HttpOnly, SameSite=Lax, Path=/, expiring with the token", () => {
    const token = createSessionToken("key_abc");
    const cookie = sessionSetCookie(token, true);
    expect(cookie.startsWith(`__Host-cb_session=${token};`)).toBe(true);
    for (const attr of ["Secure", "HttpOnly", "SameSite=Lax", "Path=/", `Max-Age=${SESSION_TTL_SECONDS}`]) {
      expect(cookie.split("; ")).toContain(attr);
    }
    expect(cookie).not.toMatch(/Domain=/i); // __Host- forbids it
    expect(verifySessionToken(token)).toBe("key_abc");
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

  it("knows https directly and behind a TLS-terminating proxy", () => {
    expect(isSecureRequest(new Request("https://portal.example/session"))).toBe(true);
    expect(isSecureRequest(new Request("http://10.0.0.1/session", { headers: { "x-forwarded-proto": "https, http" } }))).toBe(true);
    expect(isSecureRequest(new Request("http://127.0.0.1:3000/session"))).toBe(false);
  });
});

describe("sign-in guards", () => {
  it("only returns to same-site paths after sign-in", () => {
    expect(safeReturnPath("/calls?direction=inbound")).toBe("/calls?direction=inbound");
    for (const bad of ["//evil.example", "/\\evil.example", "https://evil.example", "", null, undefined]) expect(safeReturnPath(bad)).toBe("/");
  });

  it("refuses a sign-in form posted from another site", () => {
    const post = (headers: Record<string, string>) => new Request("http://portal.example/session", { method: "POST", headers });
    expect(isSameOriginPost(post({ host: "portal.example", origin: "http://portal.example" }))).toBe(true);
    expect(isSameOriginPost(post({ host: "portal.example", origin: "https://evil.example" }))).toBe(false);
    expect(isSameOriginPost(post({ host: "portal.example", origin: "null" }))).toBe(false);
    expect(isSameOriginPost(post({ host: "portal.example" }))).toBe(true); // not a browser form post
  });
});
