// The two SQLite drivers side by side, doing what SqliteRunStore does: WAL, synchronous=NORMAL, one prepared
// INSERT OR REPLACE of a small JSON row, committed one row per transaction (a for_each at max_concurrency 1) and
// 64 rows per transaction (the group commit at max_concurrency 64). better-sqlite3 is here only to compare
// (it is a dev dependency, built anyway for LangGraph's SQLite saver in bench/peers); the store runs on
// node:sqlite. Used by bench/engine.ts.
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import Database from "better-sqlite3";

/** A driver's write path: `commit(rows)` writes `rows` rows in one transaction. */
interface Writer {
  commit(rows: number): void;
  close(): void;
}

const value = (i: number) => JSON.stringify({ index: i, status: "ok", attempts: 1 });

function betterSqlite3(file: string): Writer {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID");
  const put = db.prepare("INSERT OR REPLACE INTO t VALUES (?, ?)");
  let i = 0;
  // Made once, like the store's: better-sqlite3 builds wrapper functions per `transaction()` call.
  const tx = db.transaction((rows: number) => {
    for (let r = 0; r < rows; r++, i++) put.run(`k${i}`, value(i));
  });
  return { commit: (rows) => tx(rows), close: () => db.close() };
}

function nodeSqlite(file: string): Writer {
  const db = new DatabaseSync(file);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
  db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID");
  const put = db.prepare("INSERT OR REPLACE INTO t VALUES (?, ?)");
  const begin = db.prepare("BEGIN");
  const commit = db.prepare("COMMIT");
  const rollback = db.prepare("ROLLBACK");
  let i = 0;
  return {
    commit(rows) {
      begin.run();
      try {
        for (let r = 0; r < rows; r++, i++) put.run(`k${i}`, value(i));
        commit.run();
      } catch (error) {
        rollback.run();
        throw error;
      }
    },
    close: () => db.close(),
  };
}

export const DRIVERS = { "better-sqlite3": betterSqlite3, "node:sqlite": nodeSqlite } as const;
export type DriverName = keyof typeof DRIVERS;

/** Writes `total` rows into a fresh file in `dir`, `perTransaction` at a time. */
export function driverCommits(
  driver: DriverName,
  dir: string,
  name: string,
  total: number,
  perTransaction: number,
): void {
  const w = DRIVERS[driver](join(dir, `${name}.db`));
  for (let done = 0; done < total; done += perTransaction) w.commit(Math.min(perTransaction, total - done));
  w.close();
}
