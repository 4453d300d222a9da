import { Hono, type Context } from "hono";
import { builtInNodeTypes } from "../../compose/node-types.js";
import { streamSSE } from "hono/streaming";
import { renderRepairDiff } from "../../authoring/repair-diff.js";
import { runOrigin } from "../../authoring/run-origin.js";
import { DeputyError } from "../../errors/deputy-error.js";
import type { NodeType } from "../../plan/node-type.js";
import type { RunStore } from "../../store/run-store.js";
import type { ItemRecord } from "../../store/run-state.js";
import { approveRepair, rejectRepair } from "../../authoring/repair-decisions.js";
import { inbox } from "./inbox-view.js";
import { lineageOf, parseRepairDecision, repairInbox } from "./repair-view.js";
import { parseDecision } from "./decision-body.js";
import { recordDecision } from "./record-decision.js";
import { LiveRuns } from "./live-runs.js";
import { ResumeRunner } from "./resume-runner.js";
import { planGraph, viewOf } from "./run-view.js";
import { securityMiddleware } from "./security.js";
import { shown } from "./shown.js";
import type { Asset } from "./static-assets.js";
import { RunToolLoader } from "./run-tool-loader.js";
import { TraceFile, type TraceFilter } from "./trace-view.js";
import { learnView } from "./learn-view.js";

/** Options of {@link createConsoleApp}. */
export interface ConsoleAppOptions {
  store: RunStore;
  /** The per-start token every `/api` request must carry. */
  token: string;
  /** Host names the console answers to (`127.0.0.1`, `localhost`, …). */
  hostnames: readonly string[];
  /** The built client, by URL path (see `loadAssets`). */
  assets: Map<string, Asset>;
  /** Tools module for checking corrected calls and resuming. Default: each run's own. */
  tools?: string;
  /** A JSONL trace file for the trace viewer. Default: each run's own, when it was started with one. */
  traces?: string;
  /** Model files whose learning history (`deputy learn`) a node's page shows. */
  learn?: readonly string[];
  /** The node types whose nodes the console describes (their `consoleView`). Default: the built-in ones. */
  nodeTypes?: readonly NodeType<any>[];
}

/** The console's HTTP app (Hono) and what must be waited for before the store closes. */
export interface ConsoleApp {
  app: Hono;
  /** Waits for resumes started from the page. */
  drain(): Promise<void>;
}

const ITEM_STATUSES = new Set<ItemRecord["status"]>(["ok", "error", "skipped", "escalated"]);

/** Builds the console's routes: the built client, a JSON API over the run store, resolve and resume. */
export function createConsoleApp(options: ConsoleAppOptions): ConsoleApp {
  const { store } = options;
  const nodeTypes = new Map((options.nodeTypes ?? builtInNodeTypes).map((t) => [t.name, t]));
  const catalog = new RunToolLoader(options.tools);
  const live = new LiveRuns(store);
  const runner = new ResumeRunner(store, catalog, (event) => live.publish(event));
  const traceFiles = new Map<string, TraceFile>();
  const traceFile = (path: string) =>
    traceFiles.get(path) ?? traceFiles.set(path, new TraceFile(path)).get(path)!;
  const app = new Hono();
  app.use(securityMiddleware({ token: options.token, hostnames: options.hostnames }));
  app.onError((error, c) => failure(c, error));

  app.get("/api/info", (c) => c.json({ traces: options.traces !== undefined, tools: options.tools ?? null }));

  app.get("/api/runs", async (c) => {
    const limit = intParam(c.req.query("limit"), 50, 500);
    const rows = [];
    for (const record of await store.list({ limit })) {
      const summary = await store.loadSummary(record.runId);
      if (!summary) continue;
      const { nodes, ...view } = await viewOf(store, summary);
      const byStatus: Record<string, number> = {};
      for (const n of nodes) byStatus[n.status] = (byStatus[n.status] ?? 0) + 1;
      rows.push({ ...view, nodeCounts: { total: nodes.length, byStatus } });
    }
    return c.json(shown(rows));
  });

  app.get("/api/runs/:runId", async (c) => {
    const runId = c.req.param("runId");
    const summary = await store.loadSummary(runId);
    if (!summary) return notFound(c, runId);
    const view = await viewOf(store, summary);
    const traces = options.traces ?? summary.run.options.traces;
    // What it was for: a written plan's objective and model, a repair child's delta (the parent's repair record).
    const { authored, lineage } = await runOrigin(store, summary.run);
    return c.json({
      ...shown(view),
      lineage: shown(lineageOf(summary.run)),
      ...shown({
        ...(authored ? { authored } : {}),
        // The delta as `deputy repair` prints it, escaped as the inbox shows it.
        ...(lineage?.madeBy
          ? { madeBy: { ...lineage.madeBy, diffText: renderRepairDiff(lineage.madeBy.diff ?? []) } }
          : {}),
      }),
      resume: runner.get(runId) ?? null,
      traces: traces !== undefined,
    });
  });

  // The run page's live updates, as server-sent events (read with fetch: the token is a header, which an
  // EventSource cannot send).
  app.get("/api/runs/:runId/live", (c) => {
    const runId = c.req.param("runId");
    return streamSSE(c, async (stream) => {
      const aborted = new AbortController();
      stream.onAbort(() => aborted.abort());
      await stream.writeSSE({ event: "ready", data: "{}" });
      for await (const message of live.follow(runId, aborted.signal)) await stream.writeSSE(message);
    });
  });

  app.get("/api/runs/:runId/nodes/:nodeId", async (c) => {
    const { runId, nodeId } = c.req.param();
    const summary = await store.loadSummary(runId);
    if (!summary) return notFound(c, runId);
    const view = await viewOf(store, summary);
    const node = view.nodes.find((n) => n.id === nodeId);
    const graph = planGraph(summary.run.plan).find((n) => n.id === nodeId);
    if (!node || !graph) return notFound(c, `${runId}/${nodeId}`);
    const artifacts: Record<string, string> = {};
    const record = Object.hasOwn(summary.nodes, nodeId) ? summary.nodes[nodeId] : undefined;
    if (!graph.forEach)
      for (const key of record?.storedKeys ?? [])
        if (Object.hasOwn(summary.artifacts, key)) artifacts[key] = preview(summary.artifacts[key]);
    return c.json(shown({ node, plan: graph.definition, artifacts, runStatus: view.status }));
  });

  app.get("/api/learn/:nodeId", (c) =>
    c.json({ learn: learnView(options.learn ?? [], c.req.param("nodeId")) }),
  );

  app.get("/api/runs/:runId/nodes/:nodeId/items", async (c) => {
    const { runId, nodeId } = c.req.param();
    const status = c.req.query("status") as ItemRecord["status"] | undefined;
    const page = await store.listItems(runId, nodeId, {
      offset: intParam(c.req.query("offset"), 0, Number.MAX_SAFE_INTEGER),
      limit: intParam(c.req.query("limit"), 50, 500),
      ...(status && ITEM_STATUSES.has(status) ? { status } : {}),
    });
    return c.json(
      shown({
        ...page,
        items: page.items.map((i) => ({ ...i, ...("value" in i ? { value: preview(i.value, 2000) } : {}) })),
      }),
    );
  });

  app.get("/api/inbox", async (c) => {
    const runId = c.req.query("runId");
    return c.json(await inbox(store, catalog, runId ? { runId } : {}));
  });

  app.get("/api/repairs", async (c) => {
    const runId = c.req.query("runId");
    return c.json(await repairInbox(store, runId ? { runId } : {}));
  });

  // Approving applies the delta as a child run and runs it, as `deputy repair --approve` does: the child runs
  // with the parent's tools module (or the console's --tools), under the same lease rules as a resume.
  app.post("/api/runs/:runId/repairs/:repairId/approve", async (c) => {
    const { runId, repairId } = c.req.param();
    const { by } = parseRepairDecision(await c.req.json().catch(() => null), "approve");
    const parent = (await store.loadSummary(runId))?.run;
    const tools = parent && catalog.pathFor(parent);
    const approved = await approveRepair(store, runId, {
      repairId,
      ...(by ? { by } : {}),
      ...(tools ? { options: { tools } } : {}),
    });
    const resume = await runner.start(approved.childRunId);
    return c.json(shown({ runId, repairId, childRunId: approved.childRunId, resume }), 202);
  });

  app.post("/api/runs/:runId/repairs/:repairId/reject", async (c) => {
    const { runId, repairId } = c.req.param();
    const decision = parseRepairDecision(await c.req.json().catch(() => null), "reject");
    const repair = await rejectRepair(store, runId, { repairId, ...decision });
    return c.json(shown({ runId, repairId, status: repair.status }));
  });

  app.get("/api/traces", async (c) => {
    const q = c.req.query();
    const path = options.traces ?? (q.runId ? await runTraces(q.runId) : undefined);
    if (!path) return c.json({ available: false });
    const filter: TraceFilter = {};
    for (const k of ["runId", "nodeId", "verdict", "backend"] as const) if (q[k]) filter[k] = q[k];
    if (q.item !== undefined && q.item !== "") filter.item = intParam(q.item, 0, Number.MAX_SAFE_INTEGER);
    // The histogram's threshold: what the node's type says its gate's bar is, when one node of one run is
    // shown (read from the plan as written, nothing rendered).
    const node =
      q.runId && q.nodeId
        ? planGraph((await store.loadSummary(q.runId))?.run.plan).find((n) => n.id === q.nodeId)
        : undefined;
    const threshold = node && nodeTypes.get(node.type)?.consoleView?.(node.definition).threshold;
    return c.json({
      available: true,
      ...(threshold ? { threshold } : {}),
      ...traceFile(path).query(filter),
    });
  });

  app.post("/api/runs/:runId/resolve", async (c) => {
    const runId = c.req.param("runId");
    const { nodeId, decision } = parseDecision(await c.req.json().catch(() => null));
    const run = (await store.loadSummary(runId))?.run;
    const toolsPath = run && catalog.pathFor(run);
    const resolution = await recordDecision(store, runId, nodeId, decision, toolsPath);
    return c.json(
      shown({ runId, nodeId, ...(decision.item === undefined ? {} : { item: decision.item }), resolution }),
    );
  });

  app.post("/api/runs/:runId/resume", async (c) => {
    const state = await runner.start(c.req.param("runId"));
    return c.json(shown(state), 202);
  });

  app.get("*", (c) => {
    const path = c.req.path === "/" ? "/index.html" : c.req.path;
    const asset = options.assets.get(path);
    if (!asset) return c.text("Not found.", 404);
    return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, { "Content-Type": asset.type });
  });

  async function runTraces(runId: string): Promise<string | undefined> {
    return (await store.loadSummary(runId))?.run.options.traces;
  }

  return {
    app,
    drain: async () => {
      live.close();
      await runner.drain();
    },
  };
}

/** A value as pretty JSON text, cut at `max` characters (the page shows it as text, never as markup). */
function preview(value: unknown, max = 20_000): string {
  const text = JSON.stringify(value, null, 2) ?? "undefined";
  return text.length <= max ? text : `${text.slice(0, max)}…[+${text.length - max} chars]`;
}

function intParam(text: string | undefined, fallback: number, max: number): number {
  const n = Number(text);
  return text !== undefined && text !== "" && Number.isInteger(n) && n >= 0 ? Math.min(n, max) : fallback;
}

function notFound(c: Context, what: string) {
  return c.json({ error: { code: "NOT_FOUND", message: `No ${JSON.stringify(what)} in this store.` } }, 404);
}

function failure(c: Context, error: unknown) {
  if (DeputyError.isInstance(error)) {
    const status = /NOT_FOUND/.test(error.code)
      ? 404
      : /RUNNING|LEASED|IN_PROGRESS|NO_PENDING|ALREADY/.test(error.code)
        ? 409
        : 400;
    return c.json(shown({ error: { code: error.code, message: error.message } }), status);
  }
  console.error(error);
  return c.json(
    { error: { code: "INTERNAL", message: "The console failed to answer; see its terminal." } },
    500,
  );
}
