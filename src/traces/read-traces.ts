import { existsSync, readFileSync } from "node:fs";
import { InputFileError } from "../errors/input-file-error.js";
import { rotatedTraceFile } from "./jsonl-trace-sink.js";
import type { DelegateTrace } from "./trace.js";

/** Options of {@link readTraces}. */
export interface ReadTracesOptions {
  /**
   * Read the files a `JsonlTraceSink` rotated out of `path` too (`path.N` … `path.1`, oldest first), before
   * `path` itself. Default `true`: hops written before a rotation are the same run's hops.
   */
  rotated?: boolean;
}

/**
 * The files of a trace sink at `path`, oldest first: its rotated files (`path.N` down to `path.1`, as far as
 * they go on without a gap), then `path` itself when it exists.
 */
export function traceFiles(path: string): string[] {
  const rotated: string[] = [];
  for (let n = 1; existsSync(rotatedTraceFile(path, n)); n++) rotated.unshift(rotatedTraceFile(path, n));
  return rotated.length && !existsSync(path) ? rotated : [...rotated, path];
}

/**
 * Reads a JSONL trace file, with the files its sink rotated out of it (see {@link ReadTracesOptions.rotated}),
 * oldest hop first; lines that are not trace objects are counted, not fatal (a crash can cut a line). A missing
 * or unreadable file (or a directory) is an {@link InputFileError} `TRACES_NOT_FOUND`.
 */
export function readTraces(
  path: string,
  options: ReadTracesOptions = {},
): { traces: DelegateTrace[]; invalidLines: number } {
  const traces: DelegateTrace[] = [];
  let invalidLines = 0;
  for (const file of options.rotated === false ? [path] : traceFiles(path)) {
    for (const line of readText(file).split("\n")) {
      if (line.trim() === "") continue;
      try {
        const value = JSON.parse(line) as DelegateTrace;
        if (typeof value === "object" && value !== null && typeof value.verdict === "string")
          traces.push(value);
        else invalidLines++;
      } catch {
        invalidLines++;
      }
    }
  }
  return { traces, invalidLines };
}

function readText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === "EISDIR" ? "is a directory" : "cannot be read";
    throw new InputFileError("TRACES_NOT_FOUND", `Trace file ${path} ${why}.`, { cause: error });
  }
}
