import { McpServer, type CallToolResult, type StandardSchemaWithJSON } from "@modelcontextprotocol/server";
import { checkPlanInputs } from "../authoring/plan-inputs.js";
import { createHost, type HostOptions } from "../compose/index.js";
import type { RunEvent } from "../plan/run-events.js";
import { buildManifest } from "../plan/run-manifest.js";
import { newRunId, startRun } from "../plan/run-plan.js";
import { redactRecord } from "../runtime/redact-value.js";
import type { JsonSchema } from "../schema/json-schema.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import type { LeaseOptions } from "../store/run-lease.js";
import type { RunStartFacts } from "../store/run-options-record.js";
import type { RunStore } from "../store/run-store.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { oneLine } from "./error-text.js";
import { servedPlanTools, type ServedPlanTool } from "./serve-plan-tool.js";
import { progressOfRun } from "./serve-progress.js";
import { RUN_STATUS_TOOL, runAnswer, toolError, type DecideHints } from "./serve-run-answer.js";

export type { ServedPlanTool } from "./serve-plan-tool.js";
export { RUN_STATUS_TOOL, type DecideHints, type WaitingDecision } from "./serve-run-answer.js";

/** Options of {@link servePlans}: the plans, what their runs are wired with, and where the runs are kept. */
export interface ServePlansOptions extends HostOptions {
  /** The plans to serve, each as its JSON object; each becomes the tool named by its `name`. */
  plans: readonly unknown[];
  /**
   * Where each plan came from (its file), index by index: named in errors, and kept with its runs so that
   * `deputy resume RUN_ID` finds the plan. Default: none.
   */
  sources?: readonly (string | undefined)[];
  /**
   * Where runs are checkpointed: runs are durable here like any other run, and `deputy_run_status` reads them
   * from it. Default: a `MemoryRunStore` of this server's own (runs last as long as the process).
   */
  store?: RunStore;
  /** Facts kept with every run (the CLI keeps its flags, so `deputy resume` rebuilds the run). Default: none. */
  meta?: RunStartFacts;
  /** How a person decides an escalation: the store and console the answers name. Default: neither. */
  decide?: DecideHints;
  /** How each run holds its lease (see `runPlan`). Default: the engine's. */
  lease?: LeaseOptions;
  /** The server's name and version in the MCP handshake. Default `{ name: "deputy", version: "0" }`. */
  serverInfo?: { name: string; version: string };
  /**
   * Let `deputy_run_status` read any run of the served plans in the store. Default `false`: only runs this
   * server started (since it started), so a caller cannot read the runs of others who share the store.
   */
  statusOfAnyRun?: boolean;
  /**
   * Told when a client cancels the request of a run in flight, or goes away while it runs: the run then stops
   * as on SIGINT (what is in flight is committed; it ends `interrupted`, resumable). Default: nothing.
   */
  onCancel?: (run: { runId: string; plan: string }) => void;
  /** @internal Deterministic run ids for tests. */
  _internal?: { newRunId?: () => string };
}

/** Options of {@link PlanServer.close}. */
export interface CloseOptions {
  /**
   * How long runs in flight may go on after they are told to stop (nothing new starts; what runs is committed,
   * and the run ends `interrupted`, resumable) before their work is cut short. Default 10 000 ms.
   */
  graceMs?: number;
}

/**
 * Named plans served as MCP tools. The SDK's serving entries want a fresh `McpServer` per connection (stdio) or
 * per request (HTTP), so this holds what is shared — the validated plans, the host, the store, the runs in
 * flight — and {@link PlanServer.createServer} makes the servers.
 */
export interface PlanServer {
  /** The plans' tools, as `tools/list` lists them (the status tool besides). */
  readonly tools: readonly ServedPlanTool[];
  /** A new MCP server serving the plans and `deputy_run_status`; connect it to a transport. */
  createServer(): McpServer;
  /** How many runs started through this server are still running. */
  readonly running: number;
  /**
   * Stops the runs in flight (gracefully, then after `graceMs` at once) and waits for them to be committed.
   * Does not close the store or the delegates: they are the caller's.
   */
  close(options?: CloseOptions): Promise<void>;
}

/**
 * Serves named plans as MCP tools: each plan's declared `inputs` are its tool's input schema, a call runs the plan
 * (durably, in `store`) and answers with the plan's `returns` artifact; a run that escalates answers at once
 * with its run id, what waits for a decision and how to decide it, and `deputy_run_status` reads the outcome
 * later. A failed run, or arguments that do not fit the inputs, are tool error results, never protocol errors.
 * Throws when a plan is invalid (every plan is validated against the tools here, before anything is served).
 *
 * @example
 * import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
 * const plans = servePlans({ plans: [triagePlan], tools, store: new SqliteRunStore(".deputy/runs.db") });
 * await plans.createServer().connect(new StdioServerTransport());
 */
export function servePlans(options: ServePlansOptions): PlanServer {
  if (!Array.isArray(options?.plans) || options.plans.length === 0)
    throw new InvalidOptionError("plans", "a non-empty list of plans", options?.plans);
  const { host, nodeTypes } = createHost(options);
  const tools = servedPlanTools(options.plans, options.sources, { host, nodeTypes });
  const store = options.store ?? new MemoryRunStore();
  const decide = options.decide ?? {};
  const serverInfo = options.serverInfo ?? { name: "deputy", version: "0" };
  const served = new Set(tools.map((t) => t.name));
  const stop = new AbortController();
  const abort = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  // The runs this server started: what `deputy_run_status` may read unless told otherwise (bounded).
  const startedHere = new Set<string>();

  const runTool = async (
    tool: ServedPlanTool,
    args: unknown,
    signal: AbortSignal,
    progress: ProgressSender | undefined,
  ): Promise<CallToolResult> => {
    if (stop.signal.aborted) return toolError("The server is shutting down; no new run starts.");
    if (typeof args !== "object" || args === null || Array.isArray(args))
      return toolError(`Invalid arguments for \`${tool.name}\`: the arguments must be an object.`);
    const inputs = args as Record<string, unknown>;
    const problems = checkPlanInputs(tool.declaredInputs, inputs);
    if (problems.length) return toolError(`Invalid arguments for \`${tool.name}\`: ${problems.join("; ")}.`);
    const runId = options._internal?.newRunId?.() ?? newRunId(new Date());
    if (startedHere.size >= 100_000) startedHere.delete(startedHere.values().next().value!);
    startedHere.add(runId);
    const run = startRun(tool.plan, {
      redact: redactRecord,
      host,
      nodeTypes,
      store,
      runId,
      validated: tool.report,
      ...(options.lease ? { lease: options.lease } : {}),
      ...(tool.declaredInputs !== undefined ? { inputs } : {}),
      // A cancelled request stops the run gracefully: what is in flight is committed, and it stays resumable.
      stop: AbortSignal.any([stop.signal, signal]),
      signal: abort.signal,
      ...(progress ? { onEvent: progress.onEvent } : {}),
      meta: { ...options.meta, ...(tool.source ? { plan: tool.source } : {}) },
    });
    inFlight.add(run);
    const cancelled = () => {
      if (!stop.signal.aborted) options.onCancel?.({ runId, plan: tool.name });
    };
    if (signal.aborted) cancelled();
    else signal.addEventListener("abort", cancelled, { once: true });
    try {
      const manifest = await run;
      // The answer after the last notification: a client drops progress that comes after its answer.
      await progress?.sent();
      return runAnswer(manifest, tool, decide);
    } catch (error) {
      return toolError(`Run ${runId} of \`${tool.name}\` could not run: ${oneLine(error)}`);
    } finally {
      signal.removeEventListener("abort", cancelled);
      inFlight.delete(run);
    }
  };

  const readStatus = async (args: unknown): Promise<CallToolResult> => {
    const runId = typeof args === "object" && args !== null ? (args as { runId?: unknown }).runId : undefined;
    if (typeof runId !== "string" || !RUN_ID.test(runId))
      return toolError(
        `Invalid arguments for \`${RUN_STATUS_TOOL}\`: "runId" must be a run id (as a plan's answer gives it).`,
      );
    if (!options.statusOfAnyRun && !startedHere.has(runId))
      return toolError(
        `No run "${runId}" of the plans this server serves that this server started (it reads only its own runs; \`statusOfAnyRun\`, \`deputy mcp serve --status-any-run\`, reads every run of its plans).`,
      );
    let stored;
    try {
      stored = await store.load(runId);
    } catch (error) {
      return toolError(`The run store could not be read: ${oneLine(error)}`);
    }
    // Only runs of the plans served here: the store may hold other runs this client has no business reading.
    const tool =
      stored && served.has(stored.run.planName)
        ? tools.find((t) => t.name === stored.run.planName)
        : undefined;
    if (!stored || !tool) return toolError(`No run "${runId}" of the plans this server serves.`);
    const nodes = (stored.run.plan as { nodes?: { id: string; type?: string }[] }).nodes ?? [];
    return runAnswer(buildManifest(stored, nodes, nodeTypes), tool, decide);
  };

  return {
    tools,
    get running() {
      return inFlight.size;
    },
    createServer() {
      const server = new McpServer(serverInfo, { capabilities: { tools: {} } });
      for (const tool of tools)
        server.registerTool(
          tool.name,
          {
            description: tool.description,
            inputSchema: acceptAnything(tool.inputSchema),
            ...(tool.readOnly ? { annotations: { readOnlyHint: true } } : {}),
          },
          (args, ctx) => runTool(tool, args, ctx.mcpReq.signal, progressTo(ctx.mcpReq)),
        );
      server.registerTool(
        RUN_STATUS_TOOL,
        {
          description:
            "Reads the outcome of a run that a plan tool of this server started (completed, escalated and waiting for a person, failed, or still running), by the run id its answer gave.",
          inputSchema: acceptAnything(STATUS_INPUT),
          annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
        },
        (args) => readStatus(args),
      );
      return server;
    },
    async close(closeOptions = {}) {
      const graceMs = closeOptions.graceMs ?? 10_000;
      stop.abort(new Error("the MCP server is closing"));
      const timer = setTimeout(
        () => abort.abort(new Error("the MCP server closed; grace period over")),
        graceMs,
      );
      timer.unref();
      await Promise.allSettled([...inFlight]);
      clearTimeout(timer);
    },
  };
}

/** A run's events as progress notifications, and when the last one was sent. */
interface ProgressSender {
  onEvent: (event: RunEvent) => void;
  sent(): Promise<void>;
}

/**
 * The run's progress as `notifications/progress` to a client that asked for it (a `progressToken` in the
 * request's `_meta`), else nothing. Sent one after another, in order; one that cannot be sent (the client went
 * away) is dropped: the run goes on, as it does for a client that never asked.
 */
function progressTo(request: {
  _meta?: { progressToken?: string | number };
  notify: (n: { method: "notifications/progress"; params: Record<string, unknown> }) => Promise<void>;
}): ProgressSender | undefined {
  const progressToken = request._meta?.progressToken;
  if (progressToken === undefined) return undefined;
  let last = Promise.resolve();
  return {
    onEvent: progressOfRun((p) => {
      const params = { progressToken, ...p };
      last = last.then(() => request.notify({ method: "notifications/progress", params })).catch(() => {});
    }),
    sent: () => last,
  };
}

/** Run ids as deputy makes them (`20261201-093407-715807`), or a caller's own: short, no path or shell characters. */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

const STATUS_INPUT: JsonSchema = {
  type: "object",
  properties: { runId: { type: "string", description: "The run id a plan tool's answer gave." } },
  required: ["runId"],
  additionalProperties: false,
};

/**
 * The tool's JSON Schema as the SDK lists it, with a validation that lets every value through: the arguments
 * are checked by deputy itself (`checkPlanInputs`, the check `deputy run` uses), so a bad input is a tool error
 * result naming the input in deputy's words, not the SDK's.
 */
function acceptAnything(schema: JsonSchema): StandardSchemaWithJSON<Record<string, unknown>> {
  return {
    "~standard": {
      version: 1,
      vendor: "deputy",
      validate: (value) => ({ value: value as Record<string, unknown> }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}
