import { afterEach, expect, it, vi } from "vitest";
import { startPeriodicTask } from "./periodic-task";

afterEach(() => vi.useRealTimers());

it("runs a round at once and then one per interval, one at a time, and stop waits for the round in progress", async () => {
  vi.useFakeTimers();
  let rounds = 0;
  let inRound = 0;
  let overlapped = false;
  let finish: (() => void) | undefined;
  const task = startPeriodicTask(
    "test round failed",
    () =>
      new Promise<void>((resolve) => {
        rounds++;
        if (++inRound > 1) overlapped = true;
        finish = () => {
          inRound--;
          resolve();
        };
      }),
    1_000,
  );
  await vi.advanceTimersByTimeAsync(0);
  expect(rounds).toBe(1);
  await vi.advanceTimersByTimeAsync(5_000); // the first round has not ended: no second one
  expect(rounds).toBe(1);
  finish!();
  await vi.advanceTimersByTimeAsync(999);
  expect(rounds).toBe(1);
  await vi.advanceTimersByTimeAsync(1);
  expect(rounds).toBe(2);
  let stopped = false;
  const stopping = task.stop().then(() => (stopped = true));
  await vi.advanceTimersByTimeAsync(0);
  expect(stopped).toBe(false);
  finish!();
  await stopping;
  await vi.advanceTimersByTimeAsync(10_000);
  expect(rounds).toBe(2);
  expect(overlapped).toBe(false);
});

it("logs a failed round under its event name and carries on", async () => {
  vi.useFakeTimers();
  const written: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  let rounds = 0;
  const task = startPeriodicTask(
    "mail outbox failed",
    async () => {
      if (++rounds === 1) throw new Error("smtp down");
    },
    100,
  );
  await vi.advanceTimersByTimeAsync(100);
  await task.stop();
  spy.mockRestore();
  expect(rounds).toBe(2);
  expect(JSON.parse(written[0])).toMatchObject({ event: "mail outbox failed", error: "smtp down" });
});
