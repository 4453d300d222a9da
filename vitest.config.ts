import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: llama.cpp and child-process tests must not fight each other for them.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
