import { getOwn } from "../runtime/own.js";

/** The version of {@link RunOptionsRecord} this code writes. */
export const RUN_OPTIONS_VERSION = 1;

/**
 * How a run was started, kept with it (`RunRecord.options`) so that `deputy resume`, the console and
 * `deputy distill` rebuild the same run from the store alone. Paths are absolute; delegate specs name files and
 * URLs, never secrets.
 *
 * Versioned: a later version only adds optional fields (a field whose meaning changes gets a new name), so a
 * reader reads the fields it knows of any version, and a record written before versions existed (no `version`)
 * reads as version 1.
 */
export interface RunOptionsRecord {
  version: typeof RUN_OPTIONS_VERSION;
  /** The tools module the run was started with (`--tools`). */
  tools?: string;
  /** The delegate backend specs (`--delegate`), in chain order. */
  delegates?: string[];
  /** The JSONL trace file its proposal hops went to (`--traces`). */
  traces?: string;
  /** The plan file it was started from. */
  plan?: string;
  /** The host let delegates call tools with side effects (`--allow-delegate-side-effects`). */
  allowDelegateSideEffects?: boolean;
  /** Values of the plan's declared `inputs`. */
  inputs?: Record<string, unknown>;
  /** Its units ran on workers (`deputy-js/distributed`); a resume dispatches them there again. */
  distributed?: boolean;
  /**
   * For a plan a model wrote (`deputy plan --run`): the objective it was given, the model that wrote it, and
   * the tools it was allowed (the boundary a repair of the run keeps; absent in records written before it).
   */
  authored?: { objective: string; model: string; allowedTools?: string[] };
  /** Facts the starter asked to keep that deputy itself does not read (see {@link RunStartFacts}). */
  extra?: Record<string, unknown>;
}

/**
 * What a starter asks the engine to keep with a run (`EngineOptions.meta`; the CLI gives its flags): the record
 * less what the engine sets itself (`version`, `inputs`, `distributed`).
 */
export type RunStartFacts = Omit<RunOptionsRecord, "version" | "inputs" | "distributed">;

/** The record a run is created with: the one place one is written (the engine's `startRun` calls it). */
export function runOptionsRecord(
  facts: RunStartFacts | undefined,
  engine: { inputs?: Record<string, unknown> | undefined; distributed?: boolean | undefined },
): RunOptionsRecord {
  // Read field by field, so a caller's untyped object (JavaScript, a spread of something wider) cannot put
  // anything in the record that readers would not expect.
  return readRunOptions({
    ...facts,
    ...(engine.inputs ? { inputs: engine.inputs } : {}),
    ...(engine.distributed ? { distributed: true } : {}),
  });
}

const STRINGS = ["tools", "traces", "plan"] as const;
const KNOWN = new Set<string>([
  "version",
  ...STRINGS,
  "delegates",
  "allowDelegateSideEffects",
  "inputs",
  "distributed",
  "authored",
  "extra",
]);

/**
 * A stored record, typed: version 1, an unversioned one (written before versions, with the same fields at the
 * top level), or a later version (read for the fields this version knows). A field of the wrong type is left
 * out rather than trusted; an unversioned record's keys that are no field of the record move to `extra`.
 */
export function readRunOptions(stored: unknown): RunOptionsRecord {
  const record: RunOptionsRecord = { version: RUN_OPTIONS_VERSION };
  if (typeof stored !== "object" || stored === null || Array.isArray(stored)) return record;
  for (const key of STRINGS) {
    const value = getOwn(stored, key);
    if (typeof value === "string") record[key] = value;
  }
  const delegates = getOwn(stored, "delegates");
  if (Array.isArray(delegates) && delegates.every((d) => typeof d === "string")) record.delegates = delegates;
  if (getOwn(stored, "allowDelegateSideEffects") === true) record.allowDelegateSideEffects = true;
  if (getOwn(stored, "distributed") === true) record.distributed = true;
  const inputs = getOwn(stored, "inputs");
  if (isPlainObject(inputs)) record.inputs = inputs;
  const extra: Record<string, unknown> = {};
  const authored = getOwn(stored, "authored");
  if (
    isPlainObject(authored) &&
    typeof authored.objective === "string" &&
    typeof authored.model === "string"
  ) {
    const allowed = authored.allowedTools;
    record.authored = {
      objective: authored.objective,
      model: authored.model,
      ...(Array.isArray(allowed) && allowed.every((n) => typeof n === "string")
        ? { allowedTools: allowed }
        : {}),
    };
  }
  const given = getOwn(stored, "extra");
  if (isPlainObject(given)) Object.assign(extra, given);
  // Before versions, the CLI's and a library caller's facts shared one flat object.
  if (getOwn(stored, "version") === undefined)
    for (const key of Object.keys(stored))
      if (!KNOWN.has(key) && key !== "__proto__") extra[key] = (stored as Record<string, unknown>)[key];
  if (Object.keys(extra).length > 0) record.extra = extra;
  return record;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
