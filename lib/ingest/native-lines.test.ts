import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseCdrJson, readLines } from "./native-lines";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cb-lines-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function collect(file: string) {
  const out = [];
  for await (const line of readLines(file)) out.push(line);
  return out;
}

describe("readLines", () => {
  it("splits across read chunks without breaking multi-byte characters; strips CRLF and a BOM", async () => {
    // ~600 KiB of 2- and 3-byte characters: several 256 KiB chunks, boundaries inside characters
    const lines = Array.from({ length: 3000 }, (_, i) => `${i}:${"é€".repeat(40 + (i % 7))}`);
    const file = path.join(dir, "multi.txt");
    fs.writeFileSync(file, `\uFEFF${lines.join("\r\n")}`);
    const read = await collect(file);
    expect(read.map((l) => l.text)).toEqual(lines);
    expect(read.map((l) => l.line)).toEqual(lines.map((_, i) => i + 1));
    expect(read.at(-1)?.bytes).toBe(fs.statSync(file).size);
  });

  it("yields empty lines too, so line numbers match an editor's", async () => {
    const file = path.join(dir, "blank.txt");
    fs.writeFileSync(file, "a\n\nb\n");
    expect((await collect(file)).map((l) => [l.line, l.text])).toEqual([
      [1, "a"],
      [2, ""],
      [3, "b"],
    ]);
  });
});

describe("parseCdrJson", () => {
  it("names the field a native record gets wrong", () => {
    const record = {
      uuid: "u",
      direction: "sideways",
      from: "1",
      to: "2",
      startTime: "2025-01-01T00:00:00Z",
      endTime: "2025-01-01T00:01:00Z",
      accountcode: "A",
    };
    expect(() => parseCdrJson(JSON.stringify(record))).toThrow(/^direction:/);
  });

  it("refuses a non-FreeSWITCH line where FreeSWITCH documents are expected", () => {
    expect(() => parseCdrJson(JSON.stringify({ uuid: "u" }), {}, "freeswitch")).toThrow(/variables/);
    expect(() => parseCdrJson("[1,2]")).toThrow(/JSON object/);
  });
});
