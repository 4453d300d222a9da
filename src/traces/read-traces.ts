import { readFileSync } from "node:fs";
import { InputFileError } from "../errors/input-file-error.js";
import type { DelegateTrace } from "./trace.js";

/**
 * Reads a JSONL trace file; lines that are not trace objects are counted, not fatal (a crash can cut a line).
 * A missing or unreadable file (or a directory) is an {@link InputFileError} `TRACES_NOT_FOUND`.
 */
export function readTraces(path: string): { traces: DelegateTrace[]; invalidLines: number } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === "EISDIR" ? "is a directory" : "cannot be read";
    throw new InputFileError("TRACES_NOT_FOUND", `Trace file ${path} ${why}.`, { cause: error });
  }
  const traces: DelegateTrace[] = [];
  let invalidLines = 0;
  for (const line of text.split("\n")) {
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
  return { traces, invalidLines };
}
