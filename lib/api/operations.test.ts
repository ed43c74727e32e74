import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { operationOf } from "./handler";
import { getOpenApiOperation, OPERATIONS } from "./operations";

const APP = path.resolve(__dirname, "../../app");
const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Every route file under app/v1 with the path it serves as the document writes it: calls/[id] -> /v1/calls/{id}. */
function routeFiles(): { file: string; path: string }[] {
  const out: { file: string; path: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      // A catch-all (`[...x]`, `[[...x]]`) answers the paths no route claims: it is not an operation.
      if (entry.isDirectory() && !/^\[\[?\.\.\./.test(entry.name)) walk(full);
      else if (entry.isFile() && /^route\.(ts|tsx|js)$/.test(entry.name)) {
        const segments = path.relative(APP, dir).split(path.sep);
        out.push({ file: full, path: `/${segments.map((s) => s.replace(/^\[(\w+)\]$/, "{$1}")).join("/")}` });
      }
    }
  };
  walk(path.join(APP, "v1"));
  return out;
}

describe("the /v1 operations", () => {
  it("are exactly what the route files under app/v1 export, each handler built from its own operation", async () => {
    const files = routeFiles();
    expect(files.length).toBeGreaterThan(5);
    const served: string[] = [];
    for (const route of files) {
      const handlers = (await import(route.file)) as Record<string, unknown>;
      for (const method of HTTP_METHODS.filter((m) => typeof handlers[m] === "function")) {
        const key = `${method} ${route.path}`;
        served.push(key);
        const declared = OPERATIONS.find((op) => op.method === method && op.path === route.path);
        expect(declared, `${key} (${path.relative(APP, route.file)}) has no operation in OPERATIONS`).toBeDefined();
        // apiRoute checks what the document says only when the route hands it this very operation.
        expect(operationOf(handlers[method]), `${key} is served by apiRoute with its operation`).toBe(
          declared!.scope ? declared : undefined,
        );
      }
    }
    expect(served.sort(), "every operation has its route file and exported method").toEqual(
      OPERATIONS.map((op) => `${op.method} ${op.path}`).sort(),
    );
  });

  it("are declared once each, with the path parameters their path names", () => {
    expect(new Set(OPERATIONS.map((op) => op.operationId)).size).toBe(OPERATIONS.length);
    expect(new Set(OPERATIONS.map((op) => `${op.method} ${op.path}`)).size).toBe(OPERATIONS.length);
    for (const op of OPERATIONS) {
      const named = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      expect(Object.keys(op.params?.shape ?? {}).sort(), op.operationId).toEqual(named);
    }
  });

  it("are each concept's own lists: every operation a concept's module exports is in its *_OPERATIONS list", async () => {
    const LIB = path.resolve(__dirname, "..");
    const modules = fs
      .readdirSync(LIB)
      .filter((dir) => dir !== "api" && dir !== "openapi")
      .flatMap((dir) =>
        ["operations.ts", "deck-operations.ts"]
          .map((name) => path.join(LIB, dir, name))
          .filter((file) => fs.existsSync(file)),
      );
    expect(modules.length).toBeGreaterThan(5);
    const listed = new Set<unknown>();
    for (const file of modules) {
      const exports = Object.entries((await import(file)) as Record<string, unknown>);
      const lists = exports.filter(([name, value]) => /_OPERATIONS$/.test(name) && Array.isArray(value));
      const own = new Set(lists.flatMap(([, value]) => value as unknown[]));
      const operations = exports.filter(([name]) => /Operation$/.test(name)).map(([, value]) => value);
      expect(operations.length, file).toBeGreaterThan(0);
      for (const op of operations)
        expect(own.has(op), `${path.relative(LIB, file)}: an operation in no list`).toBe(true);
      for (const op of own) listed.add(op);
    }
    // Gathered whole: the document has every listed operation and nothing a concept did not list (but itself).
    expect(new Set(OPERATIONS)).toEqual(new Set([...listed, getOpenApiOperation]));
  });
});
