import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits for something to happen, not for it to be fast: its default second failed a PostgreSQL
    // dispatch test on a loaded machine (two model runs beside the suite). Timing is for bench/, not for tests.
    expect: { poll: { timeout: 15_000 } },
    // Two cores: llama.cpp and child-process tests must not fight each other for them.
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
          exclude: ["**/*.pg.test.ts", "**/node_modules/**"],
        },
      },
      {
        // Tests against a real PostgreSQL server, started for the run (or DEPUTY_TEST_PG_URL); only when one
        // of these files is selected.
        extends: true,
        test: {
          name: "postgres",
          include: ["src/**/*.pg.test.ts", "test/**/*.pg.test.ts"],
          globalSetup: ["test/postgres-global-setup.ts"],
        },
      },
    ],
  },
});
