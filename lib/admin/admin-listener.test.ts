import http from "node:http";
import { describe, expect, it } from "vitest";
import { isLoopbackAddress, listenAdminChannel } from "./admin-listener";

function post(port: number, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, method: "POST", headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end("{}");
  });
}

describe("admin listener", () => {
  it("knows loopback peers by address", () => {
    for (const a of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ["10.0.0.1", "::ffff:10.0.0.1", "192.168.1.127", "fe80::1", "::", "0.0.0.0", "", undefined])
      expect(isLoopbackAddress(a), String(a)).toBe(false);
  });

  it("listens on 127.0.0.1 only and answers nothing but the admin path, never to a browser", async () => {
    const listener = await listenAdminChannel();
    try {
      expect(listener.port).toBeGreaterThan(0);
      expect(await post(listener.port, "/")).toBe(404);
      expect(await post(listener.port, "/v1/calls")).toBe(404);
      expect(await post(listener.port, "/internal/admin", { origin: "http://evil.example" })).toBe(404);
    } finally {
      await listener.close();
    }
  });
});
