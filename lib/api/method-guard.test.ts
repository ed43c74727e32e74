import { describe, expect, it } from "vitest";
import { allowedMethods, methodRefusal } from "./method-guard";

describe("method guard", () => {
  it("reads what each /v1 path allows from the OpenAPI document", () => {
    expect(allowedMethods("/v1/calls")).toEqual(["GET", "HEAD", "OPTIONS"]);
    expect(allowedMethods("/v1/calls/export")).toEqual(["GET", "HEAD", "OPTIONS"]);
    expect(allowedMethods("/v1/calls/123")).toEqual(["GET", "HEAD", "OPTIONS"]);
    expect(allowedMethods("/v1/cdrs")).toEqual(["OPTIONS", "POST"]);
    expect(allowedMethods("/v1/nothing")).toBeUndefined();
    expect(allowedMethods("/v1/calls/1/2")).toBeUndefined();
  });

  it("refuses methods a route does not implement, and TRACE/TRACK anywhere", () => {
    for (const method of ["PUT", "DELETE", "PATCH", "POST", "TRACE"]) {
      expect(methodRefusal(method, "/v1/calls?pageSize=1")?.allow).toEqual(["GET", "HEAD", "OPTIONS"]);
    }
    expect(methodRefusal("GET", "/v1/cdrs")?.allow).toEqual(["OPTIONS", "POST"]);
    expect(methodRefusal("HEAD", "/v1/cdrs")).not.toBeNull();
    expect(methodRefusal("TRACE", "/")?.allow).toEqual(["GET", "HEAD", "POST"]);
    expect(methodRefusal("TRACK", "/v1/nothing")).not.toBeNull();
  });

  it("lets implemented methods and paths no route claims through to Next", () => {
    for (const [method, url] of [
      ["GET", "/v1/calls"],
      ["HEAD", "/v1/calls"],
      ["OPTIONS", "/v1/calls"],
      ["POST", "/v1/cdrs"],
      ["PUT", "/v1/nothing"], // the catch-all's 404
      ["PUT", "/session"],
      ["GET", "/v1/calls/"], // Next redirects the trailing slash
    ] as const) {
      expect(methodRefusal(method, url), `${method} ${url}`).toBeNull();
    }
  });
});
