import type { MachineInfo } from "./machine";

export interface Figure {
  case: string;
  measure: string;
  /** null: in process, no database. */
  engine: string | null;
  value: number;
  unit: string;
  target?: ["<" | "<=" | ">=", number];
}

function meets(f: Figure): string {
  if (!f.target) return "";
  const [op, t] = f.target;
  const ok = op === "<" ? f.value < t : op === "<=" ? f.value <= t : f.value >= t;
  return ok ? "yes" : "NO";
}

const fmt = (n: number) => (Number.isInteger(n) ? n.toLocaleString("en-US") : String(n));

/** A Markdown table (readable on stdout, pasted as is into the README). */
export function printTable(report: {
  date: string;
  mode: string;
  command: string;
  machine: MachineInfo;
  loadAverageAtEnd: number;
  seconds: number;
  figures: Figure[];
}): string {
  const m = report.machine;
  const lines = [
    `Bench ${report.date.slice(0, 10)} (${report.mode}, \`${report.command}\`, ${report.seconds} s): ${m.cores} cores ${m.cpuModel}, ` +
      `${m.memoryGiB} GiB, Node ${m.node}, load average ${m.loadAverageAtStart} at start, ${report.loadAverageAtEnd} at end`,
    "",
    "| case | measure | engine | value | target | met |",
    "| --- | --- | --- | ---: | --- | --- |",
  ];
  for (const f of report.figures) {
    const target = f.target ? `${f.target[0]} ${fmt(f.target[1])}` : "(report)";
    lines.push(
      `| ${f.case} | ${f.measure} | ${f.engine ?? "in process"} | ${fmt(f.value)} ${f.unit} | ${target} | ${meets(f)} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}
