// Top functions of a V8 CPU profile (node --cpu-prof), grouped by function and file: by self time, or with
// --total by inclusive time (a sample counts once for every distinct function on its stack), which shows
// what a request's time goes to (e.g. listCalls, JSON.stringify, the driver):
// `npx tsx bench/profile-summary.ts bench/results/profile-pglite/*.cpuprofile [top] [--total] [--match text]`.
import fs from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

function main(): void {
  const args = process.argv.slice(2);
  const flag = (name: string) => args.includes(name);
  const option = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const positional = args.filter((a, i) => !a.startsWith("--") && !(i > 0 && args[i - 1] === "--match"));
  const file = positional[0];
  const top = Number(positional[1] ?? 30);
  const inclusive = flag("--total");
  const match = option("--match");
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (id: number) => {
    const f = byId.get(id)!.callFrame;
    const where = f.url.replace(/^.*\/(node_modules\/[^/]+(\/[^/]+)?|\.next[^/]*)\//, "$1/").slice(-70);
    return `${f.functionName || "(anonymous)"}  ${where}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
  };
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const grouped = new Map<string, number>();
  for (const [id, us] of self) {
    if (!inclusive) {
      const key = keyOf(id);
      grouped.set(key, (grouped.get(key) ?? 0) + us);
      continue;
    }
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) seen.add(keyOf(at));
    for (const key of seen) grouped.set(key, (grouped.get(key) ?? 0) + us);
  }
  const rows = [...grouped.entries()]
    .filter(([key]) => !match || key.includes(match))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
  console.log(`total sampled ${(total / 1e6).toFixed(1)} s (${inclusive ? "inclusive" : "self"} time)`);
  for (const [key, us] of rows) console.log(`${((us / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
}

main();
