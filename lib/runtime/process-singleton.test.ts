import { describe, expect, it, vi } from "vitest";
import { processSingleton } from "./process-singleton";

describe("processSingleton", () => {
  it("creates once per key and process, also for another copy of the module (a route chunk, a dev reload)", async () => {
    const create = vi.fn(() => ({ made: Math.random() }));
    const first = processSingleton("test.singleton", create);
    expect(processSingleton("test.singleton", create)).toBe(first);
    vi.resetModules();
    const again = await import("./process-singleton");
    expect(again.processSingleton).not.toBe(processSingleton);
    expect(again.processSingleton("test.singleton", create)).toBe(first);
    expect(create).toHaveBeenCalledTimes(1);
    expect(processSingleton("test.other", () => 0)).toBe(0); // a falsy value is kept too, not made again
    expect(processSingleton("test.other", () => 1)).toBe(0);
  });
});
