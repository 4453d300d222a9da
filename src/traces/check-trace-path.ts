import { InputFileError } from "../errors/input-file-error.js";
import { accessSync, constants, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/**
 * Checks, before a run starts, that a trace file can be appended to: an existing path must be a writable file;
 * a new one needs its nearest existing folder to be writable. Creates nothing. Throws `TRACES_INVALID`.
 */
export function checkTracePath(path: string): void {
  let existing: string = resolve(path);
  let stats = statOrUndefined(existing);
  if (stats?.isDirectory()) {
    throw new InputFileError("TRACES_INVALID", `Trace path ${path} is a directory, not a file.`);
  }
  if (stats && !writable(existing))
    throw new InputFileError("TRACES_INVALID", `Trace file ${path} is not writable.`);
  while (!stats) {
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
    stats = statOrUndefined(existing);
  }
  if (existing !== resolve(path)) {
    if (!stats?.isDirectory()) {
      throw new InputFileError(
        "TRACES_INVALID",
        `Cannot write traces to ${path}: ${existing} is not a directory.`,
      );
    }
    if (!writable(existing)) {
      throw new InputFileError(
        "TRACES_INVALID",
        `Cannot write traces to ${path}: ${existing} is not writable.`,
      );
    }
  }
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
