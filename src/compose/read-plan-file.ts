import { readFileSync, statSync } from "node:fs";
import { DeputyError } from "../errors/deputy-error.js";
import { InputFileError } from "../errors/input-file-error.js";

/**
 * Reads and parses a plan file: a missing file, a directory or bad JSON is one clear error. A UTF-8 byte order
 * mark (editors on Windows write one) is skipped.
 */
export function readPlanFile(path: string): unknown {
  let text: string;
  try {
    if (statSync(path).isDirectory()) {
      throw new InputFileError("PLAN_INVALID_FILE", `Plan path ${path} is a directory, not a plan file.`);
    }
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (DeputyError.isInstance(error)) throw error;
    throw new InputFileError("PLAN_NOT_FOUND", `Plan file not found: ${path}`);
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputFileError(
      "PLAN_INVALID_JSON",
      `Plan file ${path} is not valid JSON: ${(error as Error).message}`,
    );
  }
}
