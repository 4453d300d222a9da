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
  const files = planFiles(dir);
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
 * Every plan in `dir` (its `.json` files, not its subfolders), in file-name order, for serving them all
 * (`deputy mcp serve`). Unlike {@link findNamedPlan}, a file that is not JSON is an error naming it — it was
 * meant to be served — and so is a folder without plans.
 */
export function readPlanFolder(dir: string): NamedPlan[] {
  const files = planFiles(dir);
  if (files.length === 0)
    throw new InputFileError("PLAN_NOT_FOUND", `No plans in ${dir} (a plan is a .json file there).`);
  return files.map((file) => {
    const path = join(dir, file);
    const plan = readJson(path);
    if (plan === undefined)
      throw new InputFileError(
        "PLAN_INVALID_JSON",
        `${path} is not a JSON file (every .json file in ${dir} is served as a plan).`,
      );
    return { path, plan };
  });
}

/** The `.json` files of a plans folder, sorted; a missing folder is `PLAN_NOT_FOUND`. */
function planFiles(dir: string): string[] {
  try {
    if (statSync(dir).isDirectory())
      return readdirSync(dir)
        .filter((f) => f.endsWith(".json"))
        .sort();
  } catch {
    // missing or unreadable: as not found, below
  }
  throw new InputFileError("PLAN_NOT_FOUND", `Plans folder not found: ${dir}`);
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
