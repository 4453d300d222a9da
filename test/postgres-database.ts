import { randomBytes } from "node:crypto";
import pg from "pg";

/** Creates an empty database on the test server and returns its URL (one per test keeps tests apart). */
export async function freshDatabase(serverUrl: string): Promise<string> {
  const name = `deputy_test_${randomBytes(5).toString("hex")}`;
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
