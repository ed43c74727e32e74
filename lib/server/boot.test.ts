import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const getDbHandle = vi.fn();
const startWebhookWorker = vi.fn();
vi.mock("@/lib/db/client", () => ({ getDbHandle }));
vi.mock("@/lib/alerts/delivery", () => ({ startWebhookWorker }));
vi.mock("./http-edge", () => ({ installHttpEdge: () => undefined }));
vi.mock("@/lib/admin/admin-listener", () => ({ listenAdminChannel: () => Promise.resolve({ port: 1 }) }));

const { bootServerOrExit } = await import("./boot");

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
const handle = { db: {}, engine: "postgres" };

describe("bootServerOrExit on PostgreSQL", () => {
  let exit: ReturnType<typeof vi.spyOn>;
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubEnv("DATABASE_URL", "postgres://127.0.0.1:5432/boot-test");
    vi.stubEnv("DATA_DIR", "/nonexistent/boot-test");
    vi.spyOn(process.stderr, "write").mockReturnValue(true);
    vi.spyOn(process.stdout, "write").mockReturnValue(true);
    exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    getDbHandle.mockReset();
    startWebhookWorker.mockReset();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it("waits for an unreachable database, then starts the webhook worker once", async () => {
    getDbHandle.mockRejectedValueOnce(refused()).mockRejectedValueOnce(refused()).mockResolvedValue(handle);
    await bootServerOrExit();
    expect(exit).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(getDbHandle).toHaveBeenCalledTimes(3);
    expect(startWebhookWorker).toHaveBeenCalledTimes(1);
    expect(exit).not.toHaveBeenCalled();
  });

  it("exits 1 when the database, once reachable, cannot be opened (a failing migration), as it does at start", async () => {
    getDbHandle.mockRejectedValueOnce(refused()).mockRejectedValue(new Error('relation "calls" already exists'));
    await bootServerOrExit();
    expect(exit).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(exit).toHaveBeenCalledWith(1);
    expect(getDbHandle).toHaveBeenCalledTimes(2); // no more tries after the fatal one
    expect(startWebhookWorker).not.toHaveBeenCalled();
  });
});

describe("bootServerOrExit's word on mailed links", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  async function stderrOfBoot(): Promise<string> {
    const lines: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (lines.push(String(chunk)), true));
    vi.spyOn(process.stdout, "write").mockReturnValue(true);
    vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    // What it says before opening the database is all this looks at: no workers start (exit is a mock).
    getDbHandle.mockReset().mockRejectedValue(new Error("no database in this test"));
    vi.stubEnv("DATABASE_URL", "postgres://127.0.0.1:5432/boot-test");
    vi.stubEnv("DATA_DIR", "/nonexistent/boot-test");
    await bootServerOrExit();
    return lines.join("");
  }

  it("says at start that mail links need PUBLIC_BASE_URL when it is unset", async () => {
    vi.stubEnv("PUBLIC_BASE_URL", "");
    vi.stubEnv("PORT", "4123");
    const said = await stderrOfBoot();
    expect(said).toContain("PUBLIC_BASE_URL is not set");
    expect(said).toContain("http://localhost:4123");
  });

  it("says nothing of it when PUBLIC_BASE_URL is set", async () => {
    vi.stubEnv("PUBLIC_BASE_URL", "https://billing.example.test");
    expect(await stderrOfBoot()).not.toContain("PUBLIC_BASE_URL");
  });
});
