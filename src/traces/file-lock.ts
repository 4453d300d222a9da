import { open, rm, stat } from "node:fs/promises";

/** A lock held longer than this is taken to belong to a process that died holding it. */
const STALE_MS = 10_000;

/**
 * Runs `fn` while holding `${path}.lock`, a lock file shared by every process that uses the same path (created
 * exclusively; removed after). Waits for a holder to finish; breaks a lock older than 10 s.
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lock, "wx");
      await handle.close();
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > STALE_MS) await rm(lock, { force: true });
      else await new Promise((r) => setTimeout(r, Math.min(2 + attempt, 25)));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}
