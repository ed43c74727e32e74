export async function register() {
  // Not configuration: Next replaces NEXT_RUNTIME per bundle, so the edge bundle drops the server's imports below
  // (read through lib/config/env.ts, it would trace the database and the workers into the edge build).
  // eslint-disable-next-line no-restricted-properties
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { isBuildPhase } = await import("./lib/config/env");
  if (isBuildPhase()) return;
  const { bootServerOrExit } = await import("./lib/server/boot");
  await bootServerOrExit();
}
