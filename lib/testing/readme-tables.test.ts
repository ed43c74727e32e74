import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { roleScopeTable, ROLES } from "@/lib/auth/roles";

// The README's tables that restate the code are held to it: the layer table (README "Which folder may import
// which") to LAYERS in .dependency-cruiser.cjs, the roles table (README "People, organizations and roles", and
// docs/contract.md §14's) to lib/auth/roles.ts. A change to either side without the other fails here.

const ROOT = path.resolve(__dirname, "../..");
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), "utf8");

/** The rows of the markdown table whose header row is `header`: each row's cells, trimmed. */
function tableRows(markdown: string, header: RegExp): string[][] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => header.test(l));
  expect(start, `no table headed ${header}`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.trim().startsWith("|")) break;
    rows.push(
      line
        .trim()
        .replace(/^\||\|$/g, "")
        .split("|")
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** The names in backticks in a cell, in order. */
const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** The layers as the dependency rules enforce them: each lib folder's rank (rule `layer-<folder>`, "(layer N)"). */
function enforcedLayers(): Map<string, number> {
  const config = createRequire(__filename)(path.join(ROOT, ".dependency-cruiser.cjs")) as {
    forbidden: { name: string; comment?: string }[];
  };
  const out = new Map<string, number>();
  for (const rule of config.forbidden.filter((r) => r.name.startsWith("layer-"))) {
    const rank = /\(layer (\d+)\)/.exec(rule.comment ?? "")?.[1];
    expect(rank, rule.name).toBeDefined();
    out.set(rule.name.slice("layer-".length), Number(rank));
  }
  return out;
}

describe("the README's tables", () => {
  it("list lib's layers as .dependency-cruiser.cjs enforces them, every lib folder in one", () => {
    const documented = new Map<string, number>();
    for (const [layer, folders] of tableRows(read("README.md"), /^\| layer \| lib folders \|/)) {
      const rank = Number(/^\d+/.exec(layer)?.[0]);
      for (const folder of ticked(folders)) {
        expect(documented.has(folder), `${folder} in two rows`).toBe(false);
        documented.set(folder, rank);
      }
    }
    const enforced = enforcedLayers();
    expect(Object.fromEntries([...documented].sort())).toEqual(Object.fromEntries([...enforced].sort()));
    // lib/testing is test support, outside the layers; every other folder has one (rule lib-folder-in-a-layer).
    const folders = fs
      .readdirSync(path.join(ROOT, "lib"), { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== "testing")
      .map((e) => e.name)
      .sort();
    expect([...enforced.keys()].sort()).toEqual(folders);
  });

  it.each([
    ["README.md", /^\| role \| scopes \| can \|/],
    ["docs/contract.md", /^\s*\| role \| scopes \|\s*$/],
  ])("%s lists each role's scopes as lib/auth/roles.ts grants them", (file, header) => {
    const documented = new Map<string, string[]>();
    for (const [roleCell, scopesCell] of tableRows(read(file), header)) {
      const role = ticked(roleCell)[0] ?? roleCell;
      if (!(ROLES as readonly string[]).includes(role)) continue; // "any, when enabled": calls:read_cost, below
      // "everything of admin, and `billing:read`" / "admin's and `billing:read`": another role's scopes and more.
      const base = /^(?:everything of (\w+)|(\w+)'s)\b/.exec(scopesCell);
      const inherited = base ? (documented.get(base[1] ?? base[2]) ?? ["<undocumented>"]) : [];
      documented.set(role, [...inherited, ...ticked(scopesCell)].sort());
    }
    const granted = Object.fromEntries(roleScopeTable().map((r) => [r.role, [...r.scopes].sort()]));
    expect(Object.fromEntries(documented)).toEqual(granted);
  });
});
