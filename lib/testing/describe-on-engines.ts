import { afterAll, beforeAll, describe } from "vitest";
import type { DbHandle } from "@/lib/db/client";
import { ENGINES, openTestDb, type Engine } from "./engines";

/**
 * `describe` once per engine (`<name> on pglite`, `<name> on postgres`) around a fresh migrated
 * database: opened before the suite's own beforeAll hooks, closed (and dropped) after its afterAll
 * hooks. `handle()` is the open database inside hooks and tests.
 */
export function describeOnEngines(name: string, body: (handle: () => DbHandle, engine: Engine) => void): void {
  describe.each(ENGINES)(`${name} on %s`, (engine) => {
    let opened: DbHandle | undefined;
    beforeAll(async () => {
      opened = await openTestDb(engine);
    });
    afterAll(async () => {
      await opened?.close();
    });
    body(() => {
      if (!opened) throw new Error("the test database is opened in beforeAll");
      return opened;
    }, engine);
  });
}
