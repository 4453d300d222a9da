import type { CallToolResult } from "@modelcontextprotocol/server";
import type { RunManifest } from "../plan/run-manifest.js";
import type { Escalation } from "../records/escalation.js";
import { redactRecord, redactText } from "../runtime/redact-value.js";

/** The name of the served tool that reads a run's outcome by its id. */
export const RUN_STATUS_TOOL = "deputy_run_status";

/** At most this many open escalations are listed in one answer (a run may have thousands of items). */
const MAX_WAITING = 20;
/** At most this many errors are listed in one answer. */
const MAX_ERRORS = 20;

/** How a person decides an escalation, as the answers of a plan server name it. */
export interface DecideHints {
  /**
   * The `--store …` to put in the `deputy resolve` / `deputy resume` command lines (a file's absolute path, a
   * URL with its password replaced). Default: none (the commands then use their default store).
   */
  store?: string;
  /** The console's address (`deputy ui`), without its token; answers link to the run's inbox there. */
  consoleUrl?: string;
  /**
   * The `--tools` values to put in the `deputy resume` command line (a resume loads only the tools it is given,
   * never the ones its run record names). Default: none.
   */
  tools?: readonly string[];
  /**
   * More arguments for the `deputy resume` command line, as words (`["--mcp-headers-file", "/srv/h.txt"]`); never a
   * secret: `deputy mcp serve` names an `--mcp-header` by its name only (`Authorization: …`). Default: none.
   */
  resumeArgs?: readonly string[];
}

/**
 * One decision a paused run waits for, as an answer lists it: its stored escalation's item, verdict, reason and
 * proposal (the call the delegate proposed and the gate did not accept — a model's output: data, not
 * instructions), named for a reader.
 */
export interface WaitingDecision extends Pick<Escalation, "item" | "verdict" | "reason" | "proposal"> {
  /** The escalated node (the escalation's `nodeId`). */
  node: string;
  /** What the delegate was asked (the escalation's rendered `instruction`), when the escalation keeps it. */
  question?: Escalation["instruction"];
  /** The command line that decides it. */
  resolve: string;
}

/**
 * What a plan server answers about a run (a call of a plan's tool, or `deputy_run_status`): its id and status,
 * and then the plan's `returns` artifact (completed, partial), what waits for a decision and how to decide it
 * (escalated), or the run's errors (failed, cancelled, interrupted: a tool error result). Everything in it went
 * through deputy's redactor; a tool's or a model's output in it is data.
 */
export function runAnswer(
  manifest: RunManifest,
  tool: { name: string; returns: string | undefined },
  hints: DecideHints,
): CallToolResult {
  const { runId, status } = manifest;
  const head = { runId, plan: manifest.plan, status };
  const store = hints.store ? ` --store ${quoteArg(hints.store)}` : "";
  const tools =
    (hints.tools ?? []).map((t) => ` --tools ${quoteArg(t)}`).join("") +
    (hints.resumeArgs ?? []).map((a) => ` ${quoteArg(a)}`).join("");
  const result =
    tool.returns !== undefined && Object.hasOwn(manifest.artifacts, tool.returns)
      ? { result: manifest.artifacts[tool.returns] }
      : {};
  if (status === "completed" && (tool.returns === undefined || "result" in result))
    return ok({ ...head, ...result });
  if (status === "escalated") {
    const open = Object.values(manifest.nodes).flatMap((n) => n.escalations.filter((e) => !e.resolution));
    const waiting: WaitingDecision[] = open.slice(0, MAX_WAITING).map((e) => ({
      node: e.nodeId,
      ...(e.item !== undefined ? { item: e.item } : {}),
      verdict: e.verdict,
      reason: e.reason,
      ...(e.instruction !== undefined ? { question: e.instruction } : {}),
      ...(e.proposal !== undefined ? { proposal: e.proposal } : {}),
      resolve: `deputy resolve ${runId} ${e.nodeId}${e.item !== undefined ? ` --item ${e.item}` : ""} (--call JSON | --value JSON | --skip)${store}`,
    }));
    const console = hints.consoleUrl ? { console: inboxUrl(hints.consoleUrl, runId) } : {};
    return ok({
      ...head,
      waiting,
      ...(open.length > waiting.length ? { moreWaiting: open.length - waiting.length } : {}),
      resume: `deputy resume ${runId}${store}${tools}`,
      ...console,
      message:
        (open.length === 0
          ? "The run is paused, every decision is made and it waits to be resumed (`resume`), so there is no result yet. "
          : `The run is paused: ${open.length} decision${open.length === 1 ? "" : "s"} wait${open.length === 1 ? "s" : ""} for a person, so there is no result yet. A person decides each one (\`resolve\`${hints.consoleUrl ? ", or the console" : ""}), then resumes the run (\`resume\`). `) +
        `Do not call \`${tool.name}\` again for this; say that the rest is pending. \`${RUN_STATUS_TOOL}\` with {"runId": "${runId}"} reads the outcome afterwards.`,
    });
  }
  if (status === "running")
    return ok({
      ...head,
      message: `The run is still running; call \`${RUN_STATUS_TOOL}\` with {"runId": "${runId}"} again later.`,
    });
  const errors = runErrors(manifest);
  if (status === "partial")
    return ok({
      ...head,
      ...result,
      errors: errors.slice(0, MAX_ERRORS),
      message: `The run completed with some items failed (${errors.length} error${errors.length === 1 ? "" : "s"}).`,
    });
  if (status === "completed")
    errors.push({
      code: "NO_RESULT",
      message: `The run completed without storing "${tool.returns}" (the node that stores it was skipped).`,
    });
  return failed({
    ...head,
    errors: errors.slice(0, MAX_ERRORS),
    ...(errors.length > MAX_ERRORS ? { moreErrors: errors.length - MAX_ERRORS } : {}),
    ...(status === "completed" ? {} : { resume: `deputy resume ${runId}${store}${tools}` }),
    message: `The run did not complete (${status}): ${errors[0] ? describeError(errors[0]) : "no error was recorded"}.`,
  });
}

/** A tool error result whose text is the message (one line, redacted): a refusal before any run started. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: redactText(message) }], isError: true };
}

interface RunErrorEntry {
  node?: string;
  item?: number;
  code: string;
  message: string;
}

function runErrors(manifest: RunManifest): RunErrorEntry[] {
  const out: RunErrorEntry[] = [];
  if (manifest.error) out.push({ code: manifest.error.code, message: manifest.error.message });
  for (const [node, n] of Object.entries(manifest.nodes))
    for (const e of n.errors)
      out.push({ node, ...(e.item !== undefined ? { item: e.item } : {}), code: e.code, message: e.message });
  return out;
}

function describeError(e: RunErrorEntry): string {
  const where = e.node === undefined ? "" : `${e.node}${e.item === undefined ? "" : `[${e.item}]`}: `;
  return `${where}${e.code}: ${e.message}`;
}

/** The console's inbox for one run; the console's own address only (no token: it authorises decisions). */
export function inboxUrl(consoleUrl: string, runId: string): string {
  const url = new URL(consoleUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}/#/inbox?runId=${encodeURIComponent(runId)}`;
}

/** A command-line argument as a shell reads it: quoted when it holds anything but plain path characters. */
function quoteArg(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function ok(answer: Record<string, unknown>): CallToolResult {
  const clean = redactRecord(answer) as Record<string, unknown>;
  return { content: [{ type: "text", text: JSON.stringify(clean) }], structuredContent: clean };
}

function failed(answer: Record<string, unknown>): CallToolResult {
  const clean = redactRecord(answer) as Record<string, unknown>;
  return { content: [{ type: "text", text: JSON.stringify(clean) }], isError: true };
}
