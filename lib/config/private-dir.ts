import fs from "node:fs";
import path from "node:path";

/**
 * DATA_DIR holds every call, the API key hashes and the server secrets: only its owner may read
 * or write it. Creates it 0700, and takes group/other bits off an existing one and everything in
 * it (older versions left PGlite's files 0666 in 0755 folders). Returns how many entries it fixed.
 */
export function securePrivateDir(dir: string, options: { quiet?: boolean } = {}): { fixed: number; failed: number } {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const result = { fixed: 0, failed: 0 };
  tighten(dir, result);
  if (!options.quiet && (result.fixed > 0 || result.failed > 0)) {
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), event: "data directory permissions tightened", dir, fixed: result.fixed, failed: result.failed })}\n`,
    );
  }
  return result;
}

function tighten(entry: string, result: { fixed: number; failed: number }): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(entry);
  } catch {
    return; // removed while we walked
  }
  if (st.isSymbolicLink()) return; // never follow out of the directory
  if ((st.mode & 0o077) !== 0) {
    try {
      fs.chmodSync(entry, st.mode & 0o7700);
      result.fixed++;
    } catch {
      result.failed++; // another user's file: reported, not fatal
    }
  }
  if (st.isDirectory()) {
    for (const name of fs.readdirSync(entry)) tighten(path.join(entry, name), result);
  }
}

/**
 * New files of this process are created without group/other bits. PGlite honours it for the files
 * Postgres creates as it runs, not for the initial data directory it unpacks (chmod 0666): those
 * are fixed by a securePrivateDir pass after it opens.
 */
export function restrictUmask(): void {
  try {
    const previous = process.umask(0o077);
    if ((previous | 0o077) !== 0o077) process.umask(previous | 0o077);
  } catch {
    // worker threads cannot set it; the files are still fixed at the next start
  }
}
