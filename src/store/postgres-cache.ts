import type pg from "pg";
import type { CacheClearOptions, CacheEntry } from "./cache-entry.js";

// The PostgreSQL store's cache statements (the table is migration 3 in postgres-migrations.ts).

export async function getCachedRow(pool: pg.Pool, key: string, now: number): Promise<CacheEntry | undefined> {
  const { rows } = await pool.query(
    `SELECT key, scope, value, created_at, expires_at FROM deputy.cache
     WHERE key = $1 AND (expires_at IS NULL OR expires_at > $2)`,
    [key, now],
  );
  const row = rows[0];
  if (!row) return undefined;
  // (bigint columns come back as text.)
  return {
    key: row.key,
    scope: row.scope,
    value: row.value,
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
  };
}

export async function putCachedRow(pool: pg.Pool, entry: CacheEntry): Promise<void> {
  await pool.query(
    `INSERT INTO deputy.cache (key, scope, value, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (key) DO UPDATE SET scope = $2, value = $3, created_at = $4, expires_at = $5`,
    [entry.key, entry.scope, JSON.stringify(entry.value), entry.createdAt, entry.expiresAt],
  );
}

export async function clearCacheRows(pool: pg.Pool, options: CacheClearOptions = {}): Promise<number> {
  const where: string[] = [];
  const values: unknown[] = [];
  if (options.scope !== undefined) {
    values.push(options.scope);
    where.push(`scope = $${values.length}`);
  }
  if (options.expiredAt !== undefined) {
    values.push(options.expiredAt);
    where.push(`expires_at IS NOT NULL AND expires_at <= $${values.length}`);
  }
  const { rowCount } = await pool.query(
    `DELETE FROM deputy.cache${where.length ? ` WHERE ${where.join(" AND ")}` : ""}`,
    values,
  );
  return rowCount ?? 0;
}
