import { describe, expect, it } from "vitest";
import { isSameOriginPost, returnPathOf, safeReturnPath } from "./sign-in";

describe("safeReturnPath", () => {
  it("keeps paths of this site, normalised", () => {
    expect(safeReturnPath("/calls?direction=inbound")).toBe("/calls?direction=inbound");
    expect(safeReturnPath("/")).toBe("/");
    expect(safeReturnPath("/rates#top")).toBe("/rates#top");
    expect(safeReturnPath("/calls/../rates")).toBe("/rates");
    expect(safeReturnPath("/calls?to=<b>")).toBe("/calls?to=%3Cb%3E");
    expect(safeReturnPath("/%2F%2Fevil.example")).toBe("/%2F%2Fevil.example"); // an encoded segment of this site
  });

  // Each of these, put in a Location header, leaves the site, or breaks the header.
  const nasty: [string, string | null | undefined][] = [
    ["protocol-relative", "//evil.example"],
    ["tab between the slashes (browsers drop it: //evil.example)", "/\t/evil.example"],
    ["newline between the slashes", "/\n/evil.example"],
    ["carriage return", "/\r/evil.example"],
    ["CRLF header injection", "/calls\r\nSet-Cookie: a=b"],
    ["NUL", "/\u0000/evil.example"],
    ["DEL", "/\u007f/evil.example"],
    ["other C0 control", "/\u000b/evil.example"],
    ["backslash", "/\\evil.example"],
    ["backslash after slash", "/\\/evil.example"],
    ["two backslashes", "\\\\evil.example"],
    ["absolute https", "https://evil.example"],
    ["absolute with our path", "https://evil.example/calls"],
    ["javascript scheme", "javascript:alert(1)"],
    ["data scheme", "data:text/html,<script>alert(1)</script>"],
    ["scheme without slashes", "http:evil.example"],
    ["leading space", " //evil.example"],
    ["leading tab", "\t//evil.example"],
    ["relative path", "calls"],
    ["dot segment making //", "/.//evil.example"],
    ["triple slash", "///evil.example"],
    ["empty", ""],
    ["too long", `/${"a".repeat(3000)}`],
    ["null", null],
    ["undefined", undefined],
  ];
  it.each(nasty)("refuses %s", (_name, input) => {
    expect(safeReturnPath(input)).toBe("/");
  });

  it("never returns something a browser would resolve to another origin", () => {
    for (const [, input] of nasty) {
      const out = safeReturnPath(input);
      expect(new URL(out, "https://portal.example").origin).toBe("https://portal.example");
      expect(out).not.toMatch(/[\u0000-\u001f\u007f\\]/);
    }
  });
});

describe("isSameOriginPost", () => {
  const post = (headers: Record<string, string>) =>
    new Request("http://portal.example/session", { method: "POST", headers });
  it("refuses a sign-in form posted from another site", () => {
    expect(isSameOriginPost(post({ host: "portal.example", origin: "http://portal.example" }))).toBe(true);
    expect(isSameOriginPost(post({ host: "portal.example", origin: "https://evil.example" }))).toBe(false);
    expect(isSameOriginPost(post({ host: "portal.example", origin: "null" }))).toBe(false);
    expect(isSameOriginPost(post({ host: "portal.example", "sec-fetch-site": "cross-site" }))).toBe(false);
    expect(isSameOriginPost(post({ host: "portal.example", "sec-fetch-site": "same-origin" }))).toBe(true);
    expect(isSameOriginPost(post({ host: "portal.example" }))).toBe(true); // not a browser form post
  });
});

describe("returnPathOf", () => {
  it("keeps the query of a deep link, repeated parameters included, as a path of this site", () => {
    expect(returnPathOf("/reports", { groupBy: "destination", from: "2026-11-01", until: "" })).toBe(
      "/reports?groupBy=destination&from=2026-11-01&until=",
    );
    expect(returnPathOf("/calls", { cause: ["A", "B"], none: undefined })).toBe("/calls?cause=A&cause=B");
    expect(returnPathOf("/rates", {})).toBe("/rates");
    expect(returnPathOf("//evil.example", { a: "1" })).toBe("/");
  });
});
