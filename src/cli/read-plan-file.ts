import { readFileSync } from "node:fs";
import { InputFileError } from "../errors/input-file-error.js";

/** Reads and parses a plan file; a missing file or bad JSON is one clear error. */
export function readPlanFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new InputFileError("PLAN_NOT_FOUND", `Plan file not found: ${path}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputFileError(
      "PLAN_INVALID_JSON",
      `Plan file ${path} is not valid JSON: ${(error as Error).message}`,
    );
  }
}
