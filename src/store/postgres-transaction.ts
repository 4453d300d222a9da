import type pg from "pg";

/**
 * The PostgreSQL stores' one transaction helper: runs `fn` on `client` between `BEGIN` and `COMMIT`, and rolls back
 * when it throws. The error `fn` threw is the one rethrown (a failed `ROLLBACK`, as on a broken connection, is
 * not). The caller owns the client: it connects and releases it.
 */
export async function withTransaction<T>(
  client: pg.ClientBase,
  fn: (client: pg.ClientBase) => Promise<T>,
): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}
