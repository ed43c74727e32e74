import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = { "@": path.resolve(__dirname) };

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: "unit",
          include: ["lib/**/*.test.ts", "cli/**/*.test.ts", "components/**/*.test.ts"],
          environment: "node",
          // One migrated database per engine, copied by each test's openTestDb (lib/testing/engines.ts).
          globalSetup: ["lib/testing/template-databases.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: "forks",
          maxWorkers: 2,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "api",
          include: ["tests/api/**/*.test.ts"],
          environment: "node",
          globalSetup: ["tests/api/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          pool: "forks",
          maxWorkers: 1,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "reliability",
          include: ["tests/reliability/**/*.test.ts"],
          environment: "node",
          testTimeout: 300_000,
          hookTimeout: 300_000,
          pool: "forks",
          maxWorkers: 1,
        },
      },
    ],
  },
});
