import { readFileSync } from "node:fs";
import type { DelegateTrace } from "./trace.js";

/** Reads a JSONL trace file; lines that are not trace objects are counted, not fatal (a crash can cut a line). */
export function readTraces(path: string): { traces: DelegateTrace[]; invalidLines: number } {
  const traces: DelegateTrace[] = [];
  let invalidLines = 0;
  for (const line of readFileSync(path, "utf8").split("\n")) {
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
