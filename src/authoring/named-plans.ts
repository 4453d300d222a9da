import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { InputFileError } from "../errors/input-file-error.js";

/** A plan found by name in a folder of plans. */
export interface NamedPlan {
  /** The plan file. */
  path: string;
  /** The plan JSON as read (not yet validated). */
  plan: unknown;
}

/**
 * Finds the plan called `name` among the `.json` files of `dir` (not its subfolders): the one whose `name` field
 * is `name`, else the one whose file is `name.json`. Two plans of that name are an error (which one ran would
 * depend on the folder's order); so is none, with the names there are. Files that are not JSON are skipped in
 * the search (they are no plan of any name).
 */
export function findNamedPlan(dir: string, name: string): NamedPlan {
  let files: string[] = [];
  let found = false;
  try {
    found = statSync(dir).isDirectory();
    if (found)
      files = readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .sort();
  } catch {
    found = false;
  }
  if (!found) throw new InputFileError("PLAN_NOT_FOUND", `Plans folder not found: ${dir}`);
  const plans = files.flatMap((file) => {
    const path = join(dir, file);
    const plan = readJson(path);
    return plan === undefined ? [] : [{ path, plan, file: basename(file, ".json") }];
  });
  const byName = plans.filter((p) => isObject(p.plan) && p.plan.name === name);
  const matches = byName.length > 0 ? byName : plans.filter((p) => p.file === name);
  if (matches.length > 1)
    throw new InputFileError(
      "PLAN_INVALID_FILE",
      `More than one plan is named "${name}" in ${dir}: ${matches.map((m) => basename(m.path)).join(", ")}. Give each plan its own name.`,
    );
  const match = matches[0];
  if (!match) {
    const names = plans.map((p) =>
      isObject(p.plan) && typeof p.plan.name === "string" ? p.plan.name : p.file,
    );
    throw new InputFileError(
      "PLAN_NOT_FOUND",
      `No plan named "${name}" in ${dir} (plans there: ${[...new Set(names)].sort().join(", ") || "none"}).`,
    );
  }
  return { path: match.path, plan: match.plan };
}

/**
 * The plans of `dir` (its `.json` files that hold a JSON object), each with the name `findNamedPlan` finds it
 * by: its `name` field, else its file name. Empty when the folder is missing.
 */
export function listNamedPlans(dir: string): (NamedPlan & { name: string })[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort();
  } catch {
    return [];
  }
  return files.flatMap((file) => {
    const path = join(dir, file);
    const plan = readJson(path);
    if (!isObject(plan)) return [];
    return [{ path, plan, name: typeof plan.name === "string" ? plan.name : basename(file, ".json") }];
  });
}

function readJson(path: string): unknown {
  try {
    let text = readFileSync(path, "utf8");
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
