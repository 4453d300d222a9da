import { getOwn } from "../runtime/own.js";
import { redactRecord } from "../runtime/redact-value.js";
import { redactRecordedSpec } from "./redact-recorded-spec.js";

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
  /** The (first) tools module the run was started with (`--tools`). */
  tools?: string;
  /**
   * Every `--tools` value, in order, when there is more than one or an MCP server among them: tools modules as
   * absolute paths, MCP servers as written (`mcp:stdio:…`, `mcp+https://…`, a URL's password left out).
   */
  toolSources?: string[];
  /** The directory the run was started in, where its stdio MCP servers start again on a resume. */
  cwd?: string;
  /**
   * The definitions of the tools the plan uses, as it was validated against them, by tool name: a digest of each
   * part a resume compares (see {@link ToolDefinitionDigest}). Set by the engine.
   */
  toolDefinitions?: Record<string, ToolDefinitionDigest>;
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
  authored?: { objective: string; model: string; allowedTools?: string[]; approval?: AuthoredApproval };
  /** Facts the starter asked to keep that deputy itself does not read (see {@link RunStartFacts}). */
  extra?: Record<string, unknown>;
}

/**
 * A person's approval of a model-written plan whose nodes call tools with side effects (`deputy plan --run`,
 * the toolkit's `plan_execute`). `pending`: the run was kept without running anything, and no resume runs it;
 * `approved`: who approved it and how (`flag`: `--yes`; `tty`: answered on a terminal; `host`: a program's call,
 * `approveAuthoredRun`), and the pending run it was approved from, if any.
 */
export type AuthoredApproval =
  | { status: "pending"; tools: string[] }
  | {
      status: "approved";
      tools: string[];
      how: "flag" | "tty" | "host";
      at: string;
      by?: string;
      from?: string;
    };

/**
 * A tool's definition, part by part, as short digests (sha256, 16 hex digits): a resume names the parts that
 * changed. `description` covers the description and the delegate description; `input` the input schema;
 * `annotations` the source's hints (MCP's `readOnlyHint`, …) and `delegateSafe`.
 */
export interface ToolDefinitionDigest {
  description: string;
  input: string;
  annotations: string;
}

/**
 * What a starter asks the engine to keep with a run (`EngineOptions.meta`; the CLI gives its flags): the record
 * less what the engine sets itself (`version`, `inputs`, `distributed`, `toolDefinitions`).
 */
export type RunStartFacts = Omit<RunOptionsRecord, "version" | "inputs" | "distributed" | "toolDefinitions">;

/**
 * The record a run is created with: the one place one is written (the engine's `startRun` calls it). No secret
 * reaches it: tool sources and delegate specs lose passwords, secret-named parameters and options and values of
 * a known secret shape ({@link redactRecordedSpec}), and `extra` is redacted as every record is. (An MCP
 * server's environment and headers, and a model's key, are never facts of a record: they come from the
 * environment at start.)
 */
export function runOptionsRecord(
  facts: RunStartFacts | undefined,
  engine: {
    inputs?: Record<string, unknown> | undefined;
    distributed?: boolean | undefined;
    toolDefinitions?: Record<string, ToolDefinitionDigest> | undefined;
  },
): RunOptionsRecord {
  // Read field by field, so a caller's untyped object (JavaScript, a spread of something wider) cannot put
  // anything in the record that readers would not expect.
  const { toolDefinitions: _set_by_the_engine, ...given } = (facts ?? {}) as RunOptionsRecord;
  const read = readRunOptions(given);
  return readRunOptions({
    ...read,
    ...(read.tools ? { tools: redactRecordedSpec(read.tools) } : {}),
    ...(read.toolSources ? { toolSources: read.toolSources.map(redactRecordedSpec) } : {}),
    ...(read.delegates ? { delegates: read.delegates.map(redactRecordedSpec) } : {}),
    ...(read.extra ? { extra: redactRecord(read.extra) } : {}),
    ...(engine.inputs ? { inputs: engine.inputs } : {}),
    ...(engine.distributed ? { distributed: true } : {}),
    ...(engine.toolDefinitions && Object.keys(engine.toolDefinitions).length
      ? { toolDefinitions: engine.toolDefinitions }
      : {}),
  });
}

const STRINGS = ["tools", "traces", "plan", "cwd"] as const;
const KNOWN = new Set<string>([
  "version",
  ...STRINGS,
  "toolSources",
  "toolDefinitions",
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
  const sources = getOwn(stored, "toolSources");
  if (Array.isArray(sources) && sources.length > 0 && sources.every((d) => typeof d === "string"))
    record.toolSources = sources;
  const definitions = readToolDefinitions(getOwn(stored, "toolDefinitions"));
  if (definitions) record.toolDefinitions = definitions;
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
    const approval = approvalOf(authored.approval);
    if (approval) record.authored.approval = approval;
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

/** The digests, each of the three strings; a record with any entry of another shape is left out whole. */
function readToolDefinitions(value: unknown): Record<string, ToolDefinitionDigest> | undefined {
  if (!isPlainObject(value)) return undefined;
  const digests: Record<string, ToolDefinitionDigest> = Object.create(null) as Record<
    string,
    ToolDefinitionDigest
  >;
  for (const [name, digest] of Object.entries(value)) {
    const parts = [getOwn(digest, "description"), getOwn(digest, "input"), getOwn(digest, "annotations")];
    if (!parts.every((p) => typeof p === "string")) return undefined;
    const [description, input, annotations] = parts as string[];
    Object.defineProperty(digests, name, {
      value: { description, input, annotations },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return Object.keys(digests).length ? { ...digests } : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** An approval as stored, field by field; anything unreadable is no approval. */
function approvalOf(value: unknown): AuthoredApproval | undefined {
  if (!isPlainObject(value)) return undefined;
  const tools = Array.isArray(value.tools)
    ? value.tools.filter((t): t is string => typeof t === "string")
    : [];
  if (value.status === "pending") return { status: "pending", tools };
  if (value.status !== "approved" || typeof value.at !== "string") return undefined;
  if (value.how !== "flag" && value.how !== "tty" && value.how !== "host") return undefined;
  return {
    status: "approved",
    tools,
    how: value.how,
    at: value.at,
    ...(typeof value.by === "string" ? { by: value.by } : {}),
    ...(typeof value.from === "string" ? { from: value.from } : {}),
  };
}
