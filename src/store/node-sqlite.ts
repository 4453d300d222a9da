import { createRequire } from "node:module";
import type * as NodeSqlite from "node:sqlite";
import { RunError } from "../errors/run-error.js";

const require = createRequire(import.meta.url);
let loaded: typeof NodeSqlite | undefined;

/**
 * `node:sqlite`, loaded on first use. Node 22.13+ (and some later lines) print an ExperimentalWarning when the
 * module loads; which driver the run store uses is deputy's business, not the user's terminal's, so that one
 * warning is dropped while the module loads. Every other warning passes.
 */
export function nodeSqlite(): typeof NodeSqlite {
  if (loaded) return loaded;
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteExperimentalWarning(warning, rest[0])) return;
    return (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    loaded = require("node:sqlite") as typeof NodeSqlite;
  } catch (cause) {
    throw new RunError(
      "SQLITE_UNAVAILABLE",
      `The SQLite run store needs node:sqlite (Node ≥ 22.13, not disabled by --no-experimental-sqlite); this is Node ${process.version}.`,
      { cause },
    );
  } finally {
    process.emitWarning = emit;
  }
  return loaded;
}

/** Is this `process.emitWarning(warning, typeOrOptions)` call node:sqlite's ExperimentalWarning? */
export function isSqliteExperimentalWarning(warning: string | Error, typeOrOptions: unknown): boolean {
  const type =
    warning instanceof Error
      ? warning.name
      : typeof typeOrOptions === "string"
        ? typeOrOptions
        : (typeOrOptions as { type?: unknown } | undefined)?.type;
  const message = warning instanceof Error ? warning.message : warning;
  return type === "ExperimentalWarning" && /^SQLite is an experimental feature/.test(message);
}
