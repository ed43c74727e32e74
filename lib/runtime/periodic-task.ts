/** A background loop of the server process: `stop()` ends it once the round in progress has finished. */
export interface PeriodicTask {
  stop(): Promise<void>;
}

/**
 * Runs `round` at once, then `intervalMs` after each round ends (never two at a time). A round that throws is logged
 * as a JSON line naming `event` and the next one runs on schedule. The timer never keeps a process alive.
 */
export function startPeriodicTask(event: string, round: () => Promise<unknown>, intervalMs: number): PeriodicTask {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = round()
        .catch((e: unknown) =>
          process.stderr.write(
            `${JSON.stringify({ time: new Date().toISOString(), event, error: (e as Error).message })}\n`,
          ),
        )
        .finally(() => schedule(intervalMs));
    }, ms);
    timer.unref();
  };
  schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
