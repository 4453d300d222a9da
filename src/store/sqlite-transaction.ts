import type { DatabaseSync } from "node:sqlite";

/** Runs `fn` in one transaction: committed when it returns, rolled back when it throws (the error is rethrown). */
export type SqliteTransaction = <T>(fn: () => T) => T;

/**
 * The SQLite stores' one transaction helper. `BEGIN`, `COMMIT` and `ROLLBACK` are prepared once here: at
 * `max_concurrency` 1 there is one transaction per item. `"immediate"` takes the write lock at `BEGIN` (a migration
 * must not race another process's).
 */
export function sqliteTransaction(
  db: DatabaseSync,
  mode: "deferred" | "immediate" = "deferred",
): SqliteTransaction {
  const begin = db.prepare(mode === "immediate" ? "BEGIN IMMEDIATE" : "BEGIN");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");
  return (fn) => {
    begin.run();
    try {
      const result = fn();
      commit.run();
      return result;
    } catch (error) {
      try {
        rollback.run();
      } catch {
        // No transaction left to roll back: SQLite already ended it with the failure.
      }
      throw error;
    }
  };
}
