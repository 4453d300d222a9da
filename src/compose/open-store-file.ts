import { sqliteErrorName } from "../store/sqlite-schema.js";
import { InputFileError } from "../errors/input-file-error.js";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { SqliteRunStore } from "../store/sqlite-run-store.js";

const SQLITE_HEADER = "SQLite format 3\0";

/**
 * Opens the SQLite run store at `path`, after checking that the path can be one: a directory, or a file that is
 * not an SQLite database, is `STORE_INVALID` naming the file. With `mustExist` (commands that read runs:
 * `runs`, `resume`, `resolve`), a missing file is `STORE_NOT_FOUND` and nothing is created — a mistyped
 * `--store` must not leave directories and empty databases behind.
 */
export function openStoreFile(path: string, options: { mustExist?: boolean } = {}): SqliteRunStore {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    stats = undefined;
  }
  if (!stats && options.mustExist) {
    throw new InputFileError("STORE_NOT_FOUND", `No run store at ${path} (check --store).`);
  }
  if (stats?.isDirectory()) {
    throw new InputFileError("STORE_INVALID", `Run store ${path} is a directory, not an SQLite file.`);
  }
  if (stats && stats.size > 0 && !hasSqliteHeader(path)) {
    throw new InputFileError("STORE_INVALID", `Run store ${path} is not an SQLite database.`);
  }
  try {
    return new SqliteRunStore(path);
  } catch (cause) {
    const code = sqliteErrorName(cause);
    const why = /BUSY|LOCKED/.test(code) ? "it is locked by another process" : (cause as Error).message;
    throw new InputFileError("STORE_INVALID", `Cannot open run store ${path}: ${why}.`, { cause });
  }
}

function hasSqliteHeader(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(SQLITE_HEADER.length);
    readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.toString("latin1") === SQLITE_HEADER;
  } finally {
    closeSync(fd);
  }
}
