import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import type { CacheClearOptions, CacheEntry } from "./cache-entry.js";

/** The SQLite store's cache table (its schema is in `sqlite-schema.ts`): prepared once per store. */
export class SqliteCache {
  readonly #get;
  readonly #put;
  readonly #db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.#db = db;
    this.#get = db.prepare(
      `SELECT key, scope, value, created_at, expires_at FROM cache
       WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)`,
    );
    this.#put = db.prepare(
      `INSERT OR REPLACE INTO cache (key, scope, value, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
    );
  }

  get(key: string, now: number): CacheEntry | undefined {
    const row = this.#get.get(key, now) as
      | { key: string; scope: string; value: string; created_at: number; expires_at: number | null }
      | undefined;
    if (!row) return undefined;
    return {
      key: row.key,
      scope: row.scope,
      value: JSON.parse(row.value),
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }

  put(entry: CacheEntry): void {
    this.#put.run(entry.key, entry.scope, JSON.stringify(entry.value), entry.createdAt, entry.expiresAt);
  }

  clear(options: CacheClearOptions = {}): number {
    const where: string[] = [];
    const values: SQLInputValue[] = [];
    if (options.scope !== undefined) {
      where.push("scope = ?");
      values.push(options.scope);
    }
    if (options.expiredAt !== undefined) {
      where.push("expires_at IS NOT NULL AND expires_at <= ?");
      values.push(options.expiredAt);
    }
    const sql = `DELETE FROM cache${where.length ? ` WHERE ${where.join(" AND ")}` : ""}`;
    return Number(this.#db.prepare(sql).run(...values).changes);
  }
}
