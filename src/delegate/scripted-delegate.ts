import { InputFileError } from "../errors/input-file-error.js";
import { readFileSync } from "node:fs";
import { DelegateBackendError } from "../errors/delegate-backend-error.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import type { ProposedCall } from "../records/hop.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "./protocol.js";

/** One scripted answer: a proposal, or a backend error, for a node (and optionally one for_each item). */
export type ScriptedEntry =
  | {
      node: string;
      item?: number;
      /** A proposed call (its confidence may be left out). */
      proposal: Pick<ProposedCall, "name"> & Partial<ProposedCall>;
    }
  | { node: string; item?: number; error: string };

/** Options of {@link ScriptedDelegate}. */
export interface ScriptedDelegateOptions {
  /** The answers: a JSONL file path, or the entries themselves. */
  entries: string | ScriptedEntry[];
  /** Name in traces and manifests. Default `"scripted"`. */
  name?: string;
  /** Default `16`. */
  maxTools?: number;
  /** Default `100_000`. */
  maxInputChars?: number;
}

/**
 * A backend that replays proposals, for tests and demos that must be deterministic. Entries for the same node
 * and item are used in order (a retry takes the next one); an entry without `item` serves any item of its node
 * once the item's own entries are used up (under for_each with concurrency, prefer per-item entries, since
 * node-wide ones go to whichever item asks first). Running out of entries is a `backend_error`.
 *
 * @example
 * // proposals.jsonl
 * // {"node": "triage", "item": 0, "proposal": {"name": "ignore_alert", "arguments": {"reason": "noise"}, "confidence": 0.95}}
 * // {"node": "triage", "item": 1, "error": "model timed out"}
 * const delegate = new ScriptedDelegate({ entries: "proposals.jsonl" });
 *
 * @example
 * // The same entries inline, without a file:
 * const delegate = new ScriptedDelegate({
 *   entries: [
 *     { node: "triage", item: 0, proposal: { name: "ignore_alert", arguments: { reason: "noise" }, confidence: 0.95 } },
 *     { node: "triage", item: 1, error: "model timed out" },
 *   ],
 * });
 */
export class ScriptedDelegate implements ToolCallDelegate {
  readonly name: string;
  readonly maxTools: number;
  readonly maxInputChars: number;
  readonly #queues = new Map<string, ScriptedEntry[]>();
  #closed = false;
  /** Requests received, in order (for tests). */
  readonly requests: ProposeRequest[] = [];

  constructor(options: ScriptedDelegateOptions) {
    this.name = options.name ?? "scripted";
    this.maxTools = options.maxTools ?? 16;
    this.maxInputChars = options.maxInputChars ?? 100_000;
    const entries = typeof options.entries === "string" ? readEntries(options.entries) : options.entries;
    entries.forEach((entry, i) => {
      checkEntry(
        entry,
        typeof options.entries === "string" ? `${options.entries}:${i + 1}` : `entries[${i}]`,
      );
      const key = queueKey(entry.node, entry.item);
      const queue = this.#queues.get(key) ?? [];
      queue.push(entry);
      this.#queues.set(key, queue);
    });
  }

  async propose(request: ProposeRequest): Promise<Proposal> {
    if (this.#closed)
      throw new DelegateBackendError(this.name, `${this.name} is closed`, { code: "DELEGATE_CLOSED" });
    this.requests.push(request);
    const context = request.context;
    if (!context)
      throw new DelegateBackendError(this.name, "ScriptedDelegate needs request.context to know the node.");
    if (request.signal?.aborted)
      throw new DelegateBackendError(this.name, "aborted", { code: "DELEGATE_ABORTED" });
    const entry =
      (context.item === undefined
        ? undefined
        : this.#queues.get(queueKey(context.nodeId, context.item))?.shift()) ??
      this.#queues.get(queueKey(context.nodeId, undefined))?.shift();
    const where = `node "${context.nodeId}"${context.item === undefined ? "" : ` item ${context.item}`}`;
    if (!entry) throw new DelegateBackendError(this.name, `no scripted proposal left for ${where}`);
    if ("error" in entry) throw new DelegateBackendError(this.name, entry.error);
    return {
      name: entry.proposal.name,
      arguments: entry.proposal.arguments ?? {},
      confidence: entry.proposal.confidence ?? null,
      backend: this.name,
      latencyMs: 0,
    };
  }

  /** How many entries are still unused. */
  get remaining(): number {
    let n = 0;
    for (const q of this.#queues.values()) n += q.length;
    return n;
  }

  /** Refuses later proposals (like every backend). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
  }
}

function queueKey(node: string, item: number | undefined): string {
  return item === undefined ? `${node}#*` : `${node}#${item}`;
}

function readEntries(path: string): ScriptedEntry[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (cause) {
    const why = (cause as { code?: string }).code === "EISDIR" ? "is a directory" : "not found";
    throw new InputFileError("SCRIPTED_FILE_NOT_FOUND", `Scripted proposals file ${why}: ${path}`, { cause });
  }
  const entries: ScriptedEntry[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "" || line.trimStart().startsWith("//")) return;
    try {
      entries.push(JSON.parse(line) as ScriptedEntry);
    } catch (error) {
      throw new InvalidOptionError(
        `${path}:${i + 1}`,
        `a JSON object per line (${(error as Error).message})`,
        line,
      );
    }
  });
  return entries;
}

function checkEntry(entry: unknown, where: string) {
  const e = entry as Record<string, unknown>;
  if (typeof e !== "object" || e === null || typeof e.node !== "string") {
    throw new InvalidOptionError(
      where,
      'an entry like {"node": ID, "item"?: N, "proposal": {...}} or {"node": ID, "error": "…"}',
      entry,
    );
  }
  if (e.item !== undefined && !Number.isInteger(e.item))
    throw new InvalidOptionError(`${where}.item`, "an integer", e.item);
  const proposal = e.proposal as Record<string, unknown> | undefined;
  if ("error" in e) {
    if (typeof e.error !== "string") throw new InvalidOptionError(`${where}.error`, "a string", e.error);
  } else if (typeof proposal !== "object" || proposal === null || !("name" in proposal)) {
    throw new InvalidOptionError(
      `${where}.proposal`,
      'an object with "name" (a tool name or null)',
      proposal,
    );
  }
}
