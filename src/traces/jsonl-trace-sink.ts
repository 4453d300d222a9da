import { appendFile, mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { capStrings, Redactor, type RedactOptions } from "./redact.js";
import { MAX_TRACE_DEPTH, truncateDepth } from "./truncate-depth.js";
import { withFileLock } from "./file-lock.js";
import type { DelegateTrace, TraceSink } from "./trace.js";

/** The name of the `n`th file rotated out of a sink's `path` (1 is the newest): `path.n`; `readTraces` reads them. */
export function rotatedTraceFile(path: string, n: number): string {
  return `${path}.${n}`;
}

/** Options of {@link JsonlTraceSink}. */
export interface JsonlTraceSinkOptions {
  /** Longest string kept in a trace; longer ones end in `…[+N chars]`. Default `2000`. */
  maxFieldChars?: number;
  /** Rotate before the file would grow past this many bytes. Default `50 MiB`. */
  maxBytes?: number;
  /** Rotated files kept (`traces.jsonl.1` is the newest); older ones are deleted. Default `5`. */
  maxFiles?: number;
  /** Redaction (secret-looking keys, tool-sensitive arguments, credential-shaped values, your rules). Default on; `false` turns it off. */
  redact?: boolean | RedactOptions;
  /** Told about every failed write (the run never is). */
  onError?: (error: unknown) => void;
}

/**
 * Appends one JSON line per proposal hop to a file: redacted by default, every string capped, rotated at
 * `maxBytes` keeping `maxFiles` older files. Writes keep their order; lines queued while a write is in flight go
 * out in one append. A failure is counted (`failures`, in traces lost) and reported to `onError`, never thrown
 * into the run; `write` resolves once its line is written (or lost).
 *
 * @example
 * const traceSink = new JsonlTraceSink("logs/delegate_traces.jsonl", { maxBytes: 10_000_000, maxFiles: 3 });
 * await runPlan(plan, { tools, delegates, traceSink });
 * await traceSink.close();
 */
export class JsonlTraceSink implements TraceSink {
  readonly path: string;
  /** Traces written, and traces lost to a failing write. */
  written = 0;
  failures = 0;
  readonly #maxFieldChars: number;
  readonly #maxBytes: number;
  readonly #maxFiles: number;
  readonly #redactor: Redactor | undefined;
  readonly #onError: ((error: unknown) => void) | undefined;
  /** Lines waiting for the writer, with the callbacks of their `write` calls. */
  #pending: { line: string; done: () => void }[] = [];
  #flushing: Promise<void> | undefined;
  #size: number | undefined;

  constructor(path: string, options: JsonlTraceSinkOptions = {}) {
    if (typeof path !== "string" || path === "") throw new InvalidOptionError("path", "a file path", path);
    const { maxFieldChars = 2000, maxBytes = 50 * 1024 * 1024, maxFiles = 5, redact = true } = options;
    if (!Number.isInteger(maxFieldChars) || maxFieldChars < 1) {
      throw new InvalidOptionError("maxFieldChars", "a positive integer", maxFieldChars);
    }
    if (!(maxBytes > 0)) throw new InvalidOptionError("maxBytes", "a positive number", maxBytes);
    if (!Number.isInteger(maxFiles) || maxFiles < 0)
      throw new InvalidOptionError("maxFiles", "an integer ≥ 0", maxFiles);
    this.path = path;
    this.#maxFieldChars = maxFieldChars;
    this.#maxBytes = maxBytes;
    this.#maxFiles = maxFiles;
    this.#redactor = redact === false ? undefined : new Redactor(redact === true ? {} : redact);
    this.#onError = options.onError;
  }

  /** The line a trace becomes (redacted, capped), without the newline. */
  format(trace: DelegateTrace): string {
    // Depth first: redaction, capping and JSON all recurse, and a model can propose arguments nested thousands
    // deep. The hop is then traced with its deepest parts cut, never lost.
    const bounded = truncateDepth(trace, MAX_TRACE_DEPTH) as DelegateTrace;
    const redacted = this.#redactor ? this.#redactor.redactTrace(bounded) : bounded;
    return JSON.stringify(capStrings(redacted, this.#maxFieldChars));
  }

  write(trace: DelegateTrace): Promise<void> {
    let line: string;
    try {
      line = this.format(trace) + "\n";
    } catch (error) {
      this.#fail(error, 1);
      return Promise.resolve();
    }
    return new Promise<void>((done) => {
      this.#pending.push({ line, done });
      this.#flushing ??= this.#flush();
    });
  }

  /** Waits for queued writes. The sink stays usable. */
  async close(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  /** Writes what is pending, batch by batch: lines queued while a write is in flight go out together. */
  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      try {
        await this.#append(batch.map((b) => b.line));
      } catch (error) {
        this.#fail(error, batch.length);
      }
      for (const b of batch) b.done();
    }
    this.#flushing = undefined;
  }

  async #append(lines: string[]): Promise<void> {
    if (this.#size === undefined) await mkdir(dirname(this.path), { recursive: true });
    // Measured before every batch, not remembered: another process may append to the same file, and the cap is
    // on the file, not on what this process wrote.
    this.#size = await stat(this.path).then(
      (s) => s.size,
      () => 0,
    );
    // Split the batch where the file must rotate, so no file grows past maxBytes (unless one line alone does).
    let chunk = "";
    let chunkBytes = 0;
    let chunkLines = 0;
    for (const line of lines) {
      const bytes = Buffer.byteLength(line);
      if (this.#size + chunkBytes > 0 && this.#size + chunkBytes + bytes > this.#maxBytes) {
        if (chunk) await this.#appendChunk(chunk, chunkBytes, chunkLines);
        chunk = "";
        chunkBytes = 0;
        chunkLines = 0;
        if (this.#size > 0) await this.#rotate(bytes);
      }
      chunk += line;
      chunkBytes += bytes;
      chunkLines++;
    }
    if (chunk) await this.#appendChunk(chunk, chunkBytes, chunkLines);
  }

  async #appendChunk(chunk: string, bytes: number, lines: number): Promise<void> {
    await appendFile(this.path, chunk);
    this.#size! += bytes;
    this.written += lines;
  }

  /**
   * Rotates under a lock shared with other processes writing the same file, and only if the file (measured again
   * under the lock) still has no room for `nextBytes`: a process that rotated first leaves a fresh file that the
   * others append to, instead of each renaming the other's files away.
   */
  async #rotate(nextBytes: number): Promise<void> {
    await withFileLock(this.path, async () => {
      const size = await stat(this.path).then(
        (s) => s.size,
        () => 0,
      );
      if (size === 0 || size + nextBytes <= this.#maxBytes) {
        this.#size = size;
        return;
      }
      if (this.#maxFiles === 0) {
        await rm(this.path, { force: true });
      } else {
        await rm(rotatedTraceFile(this.path, this.#maxFiles), { force: true });
        for (let i = this.#maxFiles - 1; i >= 1; i--) {
          await rename(rotatedTraceFile(this.path, i), rotatedTraceFile(this.path, i + 1)).catch(
            () => undefined,
          );
        }
        await rename(this.path, rotatedTraceFile(this.path, 1));
      }
      this.#size = 0;
    });
  }

  #fail(error: unknown, lost: number) {
    this.failures += lost;
    // The size may be wrong after a failure; measure again next time.
    this.#size = undefined;
    try {
      this.#onError?.(error);
    } catch {
      // A throwing error handler must not break the queue either.
    }
  }
}
