import { createHash } from "node:crypto";
import { createReadStream, readFileSync, statSync } from "node:fs";

const checksums = new Map<string, Promise<string>>();

/**
 * sha256 of a file (hex), read as a stream — a GGUF may be gigabytes — and computed once per (path, size, mtime)
 * in a process: what pins an encoder to a distilled model and a trust file to the model it was fitted for.
 */
export function fileSha256(path: string): Promise<string> {
  const st = statSync(path);
  const key = `${path}\0${st.size}\0${st.mtimeMs}`;
  let sum = checksums.get(key);
  if (!sum) {
    sum = new Promise<string>((resolve, reject) => {
      const hash = createHash("sha256");
      createReadStream(path)
        .on("data", (chunk) => hash.update(chunk))
        .on("error", reject)
        .on("end", () => resolve(hash.digest("hex")));
    });
    sum.catch(() => checksums.delete(key));
    checksums.set(key, sum);
  }
  return sum;
}

/** sha256 of a small file (hex), read whole, at once: a model or trust file that code writes and checks in step. */
export function fileSha256Sync(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}
