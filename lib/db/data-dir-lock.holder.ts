// Test helper of data-dir-lock.test.ts: takes a data directory's lock in a process of its own and
// keeps it until killed. argv: dir, "abstract" | "file", and the wall-clock ms to try at (so that
// several of these race for real). Prints "held <pid>", "busy <holder pid>" or "error <message>".
import { acquireLock, DataDirBusyError } from "./data-dir-lock";

const [dir, kind, at] = process.argv.slice(2);
setTimeout(
  () => {
    acquireLock(dir, "server", { port: 4321, socketFile: kind === "file", waitMs: 3_000 }).then(
      (lock) => {
        process.stdout.write(`held ${lock.pid}\n`);
        setInterval(() => undefined, 1 << 30);
      },
      (e: Error) => {
        process.stdout.write(e instanceof DataDirBusyError ? `busy ${e.holder.pid}\n` : `error ${e.message}\n`);
        process.exit(0);
      },
    );
  },
  Math.max(0, Number(at ?? 0) - Date.now()),
);
