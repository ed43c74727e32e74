import { describe, expect, it } from "vitest";
import { ceremonyChallenge, ceremonyClearCookie, ceremonySetCookie } from "./ceremony-cookie";

describe("ceremony cookies", () => {
  // better-auth's signed values are already percent-encoded ("value.signature" with base64's + / =).
  const challenge = "2fa-abc.def%2Bghi%2F%3D";

  it("hand the challenge back exactly as better-auth set it, under the transport's name", () => {
    const http = ceremonySetCookie("second-factor", challenge, false).split(";", 1)[0];
    expect(http.startsWith("cb_2fa=")).toBe(true);
    expect(ceremonyChallenge(`other=1; ${http}`, "second-factor", false)).toBe(challenge);
    const https = ceremonySetCookie("passkey", challenge, true);
    expect(https).toMatch(/^__Host-cb_passkey=.*; Path=\/; Max-Age=300; HttpOnly; SameSite=Strict; Secure$/);
    // Over https only the __Host- cookie counts.
    expect(ceremonyChallenge(http.replace("cb_2fa", "cb_passkey"), "passkey", true)).toBeNull();
  });

  it("refuse a malformed or empty value, and clear with Max-Age=0", () => {
    expect(ceremonyChallenge("cb_2fa=%E0%A4%A", "second-factor", false)).toBeNull();
    expect(ceremonyChallenge("cb_2fa=", "second-factor", false)).toBeNull();
    expect(ceremonyClearCookie("second-factor", false)).toContain("Max-Age=0");
  });
});
