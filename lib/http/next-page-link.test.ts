import { describe, expect, it } from "vitest";
import { nextPageLink, pageOrigin } from "./next-page-link";

describe("pageOrigin", () => {
  const request = (headers: Record<string, string>) => new Request("http://localhost:3000/v1/calls", { headers });
  const none = new Set<string>();
  it("prefers PUBLIC_BASE_URL, then a Host this server answers for, then its own listen address", () => {
    expect(pageOrigin(request({ host: "127.0.0.1:4000" }), "https://api.example.com", none)).toBe(
      "https://api.example.com",
    );
    expect(pageOrigin(request({ host: "127.0.0.1:3000" }), undefined, none)).toBe("http://127.0.0.1:3000");
    expect(pageOrigin(request({ host: "[::1]:3000" }), undefined, none)).toBe("http://[::1]:3000");
    expect(
      pageOrigin(
        request({ host: "api.example.com", "x-forwarded-proto": "https" }),
        undefined,
        new Set(["api.example.com"]),
      ),
    ).toBe("https://api.example.com");
    expect(pageOrigin(request({ host: "evil.com/path?" }), undefined, none)).toBe("http://localhost:3000");
  });

  it("never echoes a Host that is not allowed (docs/contract.md §4, ALLOWED_HOSTS)", () => {
    for (const host of [
      "evil.example",
      "evil.example:3000",
      "127.0.0.1:4000",
      "localhost.evil.example:3000",
      "api.example.com.evil:443",
    ]) {
      expect(pageOrigin(request({ host }), undefined, new Set(["api.example.com"]))).toBe("http://localhost:3000");
    }
  });
});

describe("nextPageLink", () => {
  it("puts pageSize, the filters the request gave (in the listing's order) and the cursor on the path", () => {
    const query = { pageSize: 5, to: "44 20", direction: "", account: undefined, cursor: "old" };
    expect(nextPageLink("https://api.example.com", "/v1/calls", query, ["account", "direction", "to"], "c.s")).toBe(
      "https://api.example.com/v1/calls?pageSize=5&to=44+20&cursor=c.s",
    );
    expect(nextPageLink("http://127.0.0.1:3000", "/v1/suppliers/sup_a/rate-decks", { pageSize: 50 }, [], "x")).toBe(
      "http://127.0.0.1:3000/v1/suppliers/sup_a/rate-decks?pageSize=50&cursor=x",
    );
  });

  it("is null on the last page", () => {
    expect(nextPageLink("http://h", "/v1/invoices", { pageSize: 5 }, [], undefined)).toBeNull();
  });
});
