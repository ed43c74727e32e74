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
