import os from "node:os";

export interface MachineInfo {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  platform: string;
  /** 1-minute load average when the run started: other work on the machine skews every figure. */
  loadAverageAtStart: number;
}

export function machineInfo(): MachineInfo {
  return {
    cores: os.availableParallelism?.() ?? os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? "unknown",
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    loadAverageAtStart: Math.round(os.loadavg()[0] * 100) / 100,
  };
}
