import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The PostgreSQL server the `*.pg.test.ts` files use. */
    pgUrl: string;
  }
}

const script = new URL("../scripts/postgres.sh", import.meta.url).pathname;

/**
 * Starts a throwaway PostgreSQL server (scripts/postgres.sh: Debian's initdb and pg_ctl on a free port) for the
 * PostgreSQL tests and stops it afterwards; `DEPUTY_TEST_PG_URL` points them at an existing server instead.
 */
export default function setup(project: TestProject) {
  const existing = process.env.DEPUTY_TEST_PG_URL;
  if (existing) {
    project.provide("pgUrl", existing);
    return;
  }
  const parent = mkdtempSync(join(tmpdir(), "deputy-pg-"));
  // The server runs as a non-root user, which must reach its directory.
  chmodSync(parent, 0o755);
  const dir = join(parent, "pg");
  const url = execFileSync("bash", [script, "start", dir], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
  project.provide("pgUrl", url);
  process.env.DEPUTY_TEST_PG_URL = url;
  return () => {
    execFileSync("bash", [script, "stop", dir], { stdio: "inherit" });
    rmSync(parent, { recursive: true, force: true });
  };
}
