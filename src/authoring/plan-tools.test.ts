/**
 * The plan toolkit through deputy's own agent loop (a scripted mock model calls the tools), on a real SQLite
 * store: every tool, the soft timeout, and each refusal coming back as data the loop goes on with.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { defineAgent } from "../agents/define-agent.js";
import { mockModel, type MockReply } from "../agents/mock-model.js";
import { planTools } from "../compose/index.js";
import { SqliteRunStore } from "../store/sqlite-run-store.js";
import { defineTool, type Tool } from "../tools/define-tool.js";
import type { PlanToolkit } from "./plan-tools.js";
import { scriptedModel } from "./scripted-model.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-plan-tools-"));
const store = new SqliteRunStore(join(dir, "runs.db"));
afterAll(() => store.close());

const calls: Record<string, number> = {};
const count = (name: string) => (calls[name] = (calls[name] ?? 0) + 1);
/** Released by a test: `slow` waits for it, so a run outlasts the soft timeout for as long as a test needs. */
let release: () => void = () => {};
let gate = Promise.resolve();
let flakyFails = 0;

const echo = defineTool({
  name: "echo",
  description: "Say something",
  delegateSafe: true,
  input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  run: ({ text }: { text: string }) => (count("echo"), { said: text }),
});
const slow = defineTool({
  name: "slow",
  description: "Wait for the test",
  input: { type: "object", properties: {} },
  run: async () => (count("slow"), await gate, "slept"),
});
const flaky = defineTool({
  name: "flaky",
  description: "Fails while the test says so",
  input: { type: "object", properties: {} },
  run: () => {
    count("flaky");
    if (flakyFails-- > 0) throw new Error("flaky is down, try again");
    return "up";
  },
});
const greet = {
  name: "greet",
  objective: "Greet someone",
  inputs: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
  returns: "said",
  nodes: [{ id: "say", tool: "echo", args: { text: "hello {inputs.who}" }, store_as: "said" }],
};
const slowPlan = { name: "slow", nodes: [{ id: "wait", tool: "slow", args: {}, store_as: "waited" }] };
const flakyPlan = {
  name: "flaky",
  nodes: [
    { id: "first", tool: "echo", args: { text: "once" }, store_as: "first" },
    { id: "second", tool: "flaky", depends_on: ["first"], args: {}, store_as: "second" },
  ],
};
const plansDir = mkdtempSync(join(tmpdir(), "deputy-plan-tools-plans-"));
writeFileSync(join(plansDir, "greet.json"), JSON.stringify(greet));
writeFileSync(join(plansDir, "slow.json"), JSON.stringify(slowPlan));
writeFileSync(join(plansDir, "flaky.json"), JSON.stringify(flakyPlan));

/** The toolkit's tools by name, called directly (what a tool loop does once it has checked the arguments). */
function byName(toolkit: PlanToolkit): Record<string, Tool> {
  return Object.fromEntries(toolkit.tools.map((t) => [t.name, t]));
}
const ctx = {
  signal: new AbortController().signal,
  idempotencyKey: "t",
  runId: "t",
  nodeId: "t",
  attempt: 1,
};
const call = (tool: Tool | undefined, args: unknown) => tool!.run(args, ctx) as Promise<any>;

type Step = (previous: any[]) => MockReply | string;

/** An agent whose model calls the plan tools as `steps` say (each step sees the previous step's tool results). */
function agentWith(toolkit: PlanToolkit, steps: Step[]) {
  const model = mockModel({
    respond: ({ step, toolResults }) => steps[step]!(toolResults.map((r) => r.output)),
  });
  return defineAgent({
    name: "Planner",
    backend: model,
    tools: toolkit.tools,
    maxSteps: steps.length,
    actions: { go: ({ ask }: { ask: string }) => ask },
  });
}

describe("planTools through deputy's agent loop", () => {
  it("offers the plan tools, each with a strict argument schema", () => {
    const toolkit = planTools({ tools: [echo], store, plans: plansDir });
    expect(toolkit.tools.map((t) => t.name)).toEqual([
      "plan_execute",
      "plan_validate",
      "plan_status",
      "plan_artifacts",
      "plan_resume",
      "plan_repair",
    ]);
    for (const t of toolkit.tools) expect(t.parameters.additionalProperties, t.name).toBe(false);
    // The named plans are listed for the model, with their inputs.
    expect(toolkit.tools[0]!.description).toMatch(/- greet \(inputs: who\) — Greet someone/);
    // Reading tools are safe for a delegate; the ones that run work are not.
    expect(toolkit.tools.filter((t) => t.delegateSafe).map((t) => t.name)).toEqual([
      "plan_validate",
      "plan_status",
      "plan_artifacts",
    ]);
  });

  it("validates a named plan, runs it with inputs, and reads its artifacts, in one conversation", async () => {
    const toolkit = planTools({ tools: [echo], store, plans: plansDir });
    const agent = agentWith(toolkit, [
      () => ({ toolCalls: [{ toolName: "plan_validate", input: { name: "greet" } }] }),
      () => ({ toolCalls: [{ toolName: "plan_execute", input: { name: "greet", inputs: { who: "ada" } } }] }),
      ([run]) => ({ toolCalls: [{ toolName: "plan_artifacts", input: { run_id: run.run_id } }] }),
      ([read]) => `It said ${read.artifacts.said.said}.`,
    ]);
    const r = await agent.run("go", { ask: "Greet Ada" });
    const [validated, executed, read] = r.steps.slice(0, 3).map((s) => s.toolResults[0]!.output as any);
    expect(validated).toEqual({ valid: true, issues: [], inputs: greet.inputs });
    expect(executed).toMatchObject({
      status: "completed",
      done: true,
      plan: "greet",
      nodes: { say: { status: "ok" } },
      artifact_keys: ["said"],
      result: { said: "hello ada" }, // the artifact the plan `returns`
    });
    expect(read).toEqual({
      run_id: executed.run_id,
      status: "completed",
      artifacts: { said: { said: "hello ada" } },
    });
    expect(r.text).toBe("It said hello ada.");
    // The run is in the store like any other, with its inputs.
    const stored = await store.load(executed.run_id);
    expect(stored?.run.options.inputs).toEqual({ who: "ada" });
  });

  it("writes a plan for an objective with its model (only the toolkit's tools in the catalogue), runs it and records where it came from", async () => {
    const written = {
      name: "shout",
      nodes: [{ id: "s", tool: "echo", args: { text: "HELLO" }, store_as: "shout" }],
    };
    const model = await scriptedModel([JSON.stringify(written)]);
    const toolkit = planTools({ tools: [echo], store, model });
    const r = await call(byName(toolkit).plan_execute, { objective: "Shout hello" });
    expect(r).toMatchObject({ status: "completed", nodes: { s: { status: "ok" } } });
    const system = JSON.stringify(model.doGenerateCalls[0]!.prompt[0]);
    expect(system).toContain('\\"name\\": \\"echo\\"');
    expect(system).not.toContain("wipe_database");
    const stored = await store.load(r.run_id);
    expect(stored?.run.options.authored).toEqual({
      objective: "Shout hello",
      model: "scripted/scripted",
      allowedTools: ["echo"],
    });
    expect(stored?.run.plan).toMatchObject({ name: "shout", objective: "Shout hello" });
  });

  it("answers with the run id before a slow run ends; the run goes on and plan_status reads how it ended", async () => {
    gate = new Promise((r) => (release = r));
    const toolkit = planTools({ tools: [slow], store, plans: plansDir, softTimeout: 0.05 });
    const tools = byName(toolkit);
    const first = await call(tools.plan_execute, { name: "slow" });
    expect(first).toMatchObject({ status: "running", done: false, run_id: expect.any(String) });
    expect(first.message).toMatch(/plan_status/);
    // While it goes on, resuming it is refused (it is not lost, only slow).
    expect(await call(tools.plan_resume, { run_id: first.run_id })).toMatchObject({
      error: "run_in_progress",
    });
    expect(await call(tools.plan_status, { run_id: first.run_id })).toMatchObject({ done: false });
    release();
    await toolkit.settle();
    const later = await call(tools.plan_status, { run_id: first.run_id });
    expect(later).toMatchObject({ status: "completed", done: true, nodes: { wait: { status: "ok" } } });
    expect(calls.slow).toBe(1);
  });

  it("resumes a failed run: the node that completed is not run again", async () => {
    flakyFails = 1;
    const before = calls.echo ?? 0;
    const toolkit = planTools({ tools: [echo, flaky], store, plans: plansDir });
    const agent = agentWith(toolkit, [
      () => ({ toolCalls: [{ toolName: "plan_execute", input: { name: "flaky" } }] }),
      ([run]) => ({ toolCalls: [{ toolName: "plan_resume", input: { run_id: run.run_id } }] }),
      ([run]) => ({ toolCalls: [{ toolName: "plan_resume", input: { run_id: run.run_id } }] }),
      () => "done",
    ]);
    const r = await agent.run("go", { ask: "run flaky" });
    const [failed, resumed, again] = r.steps.slice(0, 3).map((s) => s.toolResults[0]!.output as any);
    expect(failed).toMatchObject({
      status: "failed",
      nodes: {
        first: { status: "ok" },
        second: { status: "error", error: expect.stringMatching(/flaky is down/) },
      },
    });
    expect(failed.message).toMatch(/plan_repair|plan_resume/);
    expect(resumed).toMatchObject({ run_id: failed.run_id, status: "completed" });
    expect(again).toMatchObject({ error: "run_completed" });
    expect((calls.echo ?? 0) - before).toBe(1);
  });

  it("answers every refusal as data, and the agent's loop goes on after each", async () => {
    const refusing = planTools({ tools: [echo], store, plans: plansDir });
    const wrong = [
      [{ objective: "x", name: "greet" }, "invalid_arguments"],
      [{}, "invalid_arguments"],
      [{ objective: "x", inputs: {} }, "invalid_arguments"],
      [{ objective: "Greet" }, "no_model"],
      [{ name: "nope" }, "unknown_plan"],
      [{ name: "greet" }, "invalid_inputs"],
      [{ name: "greet", inputs: { who: 1 } }, "invalid_inputs"],
      [{ name: "greet", inputs: { who: "x", colour: "red" } }, "invalid_inputs"],
      [
        { plan: { name: "p", nodes: [{ id: "w", tool: "wipe_database", args: {}, store_as: "w" }] } },
        "plan_invalid",
      ],
      [{ plan: { name: "p", nodes: [] } }, "plan_invalid"],
    ] as const;
    const steps: Step[] = wrong.map(([input]) => () => ({
      toolCalls: [{ toolName: "plan_execute", input }],
    }));
    steps.push(
      () => ({ toolCalls: [{ toolName: "plan_status", input: { run_id: "no-such-run" } }] }),
      () => ({ toolCalls: [{ toolName: "plan_artifacts", input: { run_id: "no-such-run" } }] }),
      () => ({ toolCalls: [{ toolName: "plan_resume", input: { run_id: "no-such-run" } }] }),
      () => ({ toolCalls: [{ toolName: "plan_validate", input: { name: "greet", plan: {} } }] }),
      () => "gave up",
    );
    const r = await agentWith(refusing, steps).run("go", { ask: "try everything" });
    const outputs = r.steps.slice(0, -1).map((s) => s.toolResults[0]!.output as any);
    expect(outputs.map((o) => o.error)).toEqual([
      ...wrong.map(([, code]) => code),
      "run_not_found",
      "run_not_found",
      "run_not_found",
      "invalid_arguments",
    ]);
    for (const o of outputs) expect(typeof o.message).toBe("string");
    expect(r.text).toBe("gave up");
    // The details the model can act on: the issue, the problems with the inputs and what the plan declares.
    expect(outputs[8].issues.join("\n")).toMatch(/unknown_tool \[w\]/);
    expect(outputs[6]).toMatchObject({ problems: ["input who: must be string"], declared: greet.inputs });
    expect(outputs[4].message).toMatch(/plans there: flaky, greet, slow/);
  });

  it("refuses arguments outside the schema when called directly, and a model that cannot be asked", async () => {
    const model = await scriptedModel([]); // no answer at all: the request fails as a provider's would
    const tools = byName(planTools({ tools: [echo], store, model }));
    expect(await call(tools.plan_status, { run_id: "x", extra: 1 })).toMatchObject({
      error: "invalid_arguments",
    });
    expect(await call(tools.plan_status, {})).toMatchObject({ error: "invalid_arguments" });
    expect(await call(tools.plan_artifacts, { run_id: "x", keys: "said" })).toMatchObject({
      error: "invalid_arguments",
    });
    expect(await call(tools.plan_execute, { objective: "Greet" })).toMatchObject({
      error: "model_failed",
      message: expect.stringMatching(/no answer left/),
    });
  });

  it("previews a large artifact instead of pasting it into the model's context, and names the keys it lacks", async () => {
    const big = defineTool({
      name: "big",
      description: "A large result",
      // Read-only: a plan the calling model gives as JSON runs a tool with side effects only once a person approves.
      delegateSafe: true,
      input: { type: "object", properties: {} },
      run: () => "x".repeat(5_000),
    });
    const tools = byName(planTools({ tools: [big], store, maxValueChars: 1_000 }));
    const r = await call(tools.plan_execute, {
      plan: { name: "big", nodes: [{ id: "b", tool: "big", args: {}, store_as: "b" }] },
    });
    const read = await call(tools.plan_artifacts, { run_id: r.run_id, keys: ["b", "nope"] });
    expect(read.artifacts.b).toMatchObject({ truncated: true, chars: 5_002 });
    expect(read.artifacts.b.preview).toHaveLength(500);
    expect(read.missing).toEqual(["nope"]);
  });
});

describe("plan_execute with a plan the calling model gives as JSON", () => {
  it("holds it to the authored-plan policy: side-effecting calls wait for a person, forbidden fields are refused", async () => {
    const wipes: string[] = [];
    const wipe = defineTool({
      name: "wipe",
      description: "Deletes a table",
      input: { type: "object", properties: { table: { type: "string" } }, required: ["table"] },
      run: ({ table }: { table: string }) => (wipes.push(table), "wiped"),
    });
    const tools = byName(planTools({ tools: [wipe, echo], store }));
    const held = await call(tools.plan_execute, {
      plan: { name: "w", nodes: [{ id: "w", tool: "wipe", args: { table: "users" }, store_as: "w" }] },
    });
    expect(held).toMatchObject({ pending_approval: true, calls: [{ nodeId: "w", tools: ["wipe"] }] });
    expect(await call(tools.plan_resume, { run_id: held.run_id })).toMatchObject({
      error: "approval_pending",
    });
    const unknown = await call(tools.plan_execute, {
      plan: {
        name: "e",
        nodes: [{ id: "e", tool: "echo", args: { text: "{open_issues[0]}" }, store_as: "e" }],
      },
    });
    expect(unknown).toMatchObject({
      error: "plan_invalid",
      issues: [expect.stringMatching(/unknown_placeholder/)],
    });
    expect(wipes).toEqual([]);
    const fine = await call(tools.plan_execute, {
      plan: { name: "ok", nodes: [{ id: "e", tool: "echo", args: { text: "hi" }, store_as: "e" }] },
    });
    expect(fine).toMatchObject({ status: "completed" });
  });
});

describe("plan_repair", () => {
  const fetchV1 = defineTool({
    name: "fetch_v1",
    description: "Fetch a page (old API)",
    input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    run: () => {
      count("fetch_v1");
      throw new Error("fetch_v1 is gone, use fetch_v2");
    },
  });
  const fetchV2 = defineTool({
    name: "fetch_v2",
    description: "Fetch a page",
    delegateSafe: true,
    input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    run: ({ url }: { url: string }) => (count("fetch_v2"), `<html>${url}</html>`),
  });
  const pagePlan = {
    name: "page",
    returns: "said",
    nodes: [
      { id: "hello", tool: "echo", args: { text: "start" }, store_as: "hello" },
      { id: "fetch", tool: "fetch_v1", depends_on: ["hello"], args: { url: "http://x" }, store_as: "page" },
      {
        id: "say",
        tool: "echo",
        depends_on: ["fetch"],
        args: { text: "{artifacts.page}" },
        store_as: "said",
      },
    ],
  };
  const delta = {
    nodes: [
      { id: "fetch", tool: "fetch_v2", depends_on: ["hello"], args: { url: "http://x" }, store_as: "page" },
    ],
  };
  const tools = [echo, fetchV1, fetchV2];

  it("keeps a valid delta pending for a person by default, showing the change, and plan_status shows it", async () => {
    const model = await scriptedModel([JSON.stringify(delta)]);
    const kit = byName(planTools({ tools, store, model, plans: { page: pagePlan } }));
    const failed = await call(kit.plan_execute, { name: "page" });
    expect(failed).toMatchObject({
      status: "failed",
      nodes: { fetch: { status: "error" }, say: { status: "blocked" } },
    });
    const asked = await call(kit.plan_repair, { run_id: failed.run_id });
    expect(asked).toMatchObject({ run_id: failed.run_id, repair_id: "r1", status: "pending" });
    expect(asked.diff).toEqual(["~ fetch", '    tool: "fetch_v1" → "fetch_v2"']);
    expect(await call(kit.plan_status, { run_id: failed.run_id })).toMatchObject({
      repairs: [{ id: "r1", status: "pending" }],
    });
    // A second ask while one awaits a decision is refused, as data.
    expect(await call(kit.plan_repair, { run_id: failed.run_id })).toMatchObject({
      error: "repair_refused",
      reason: "repair_pending",
    });
  });

  it("applies the delta as a child run when the host approves repairs: only the replaced node and its dependents run", async () => {
    const model = await scriptedModel([JSON.stringify(delta)]);
    const kit = byName(planTools({ tools, store, model, plans: { page: pagePlan }, approveRepairs: true }));
    const echoes = calls.echo ?? 0;
    const failed = await call(kit.plan_execute, { name: "page" });
    const v1 = calls.fetch_v1;
    const repaired = await call(kit.plan_repair, { run_id: failed.run_id });
    expect(repaired).toMatchObject({
      repaired_run_id: failed.run_id,
      repair_id: "r1",
      status: "completed",
      nodes: { hello: { status: "ok" }, fetch: { status: "ok" }, say: { status: "ok" } },
      result: { said: "<html>http://x</html>" },
    });
    expect(repaired.run_id).not.toBe(failed.run_id);
    // `hello` ran once (in the parent), `say` once (in the child); fetch_v1 never again.
    expect((calls.echo ?? 0) - echoes).toBe(2);
    expect(calls.fetch_v1).toBe(v1);
    expect(await call(kit.plan_status, { run_id: repaired.run_id })).toMatchObject({
      parent_run_id: failed.run_id,
    });
    expect(await call(kit.plan_status, { run_id: failed.run_id })).toMatchObject({
      repairs: [{ id: "r1", status: "applied", child_run_id: repaired.run_id }],
    });
    expect(await call(kit.plan_repair, { run_id: failed.run_id })).toMatchObject({
      error: "repair_refused",
      reason: "already_repaired",
    });
  });

  it("refuses as data: no model, a run that completed, a delta that changes a protected field", async () => {
    const none = byName(planTools({ tools, store, plans: { page: pagePlan } }));
    const failed = await call(none.plan_execute, { name: "page" });
    expect(await call(none.plan_repair, { run_id: failed.run_id })).toMatchObject({ error: "no_model" });
    const hostile = { nodes: [{ ...delta.nodes[0], store_as: "elsewhere" }] };
    const model = await scriptedModel([JSON.stringify(hostile), JSON.stringify(hostile)]);
    const kit = byName(planTools({ tools, store, model, plans: { page: pagePlan, greet } }));
    expect(await call(kit.plan_repair, { run_id: failed.run_id })).toMatchObject({
      error: "repair_refused",
      issues: [expect.stringMatching(/^changed_store_as \[fetch\]/)],
    });
    const done = await call(kit.plan_execute, { name: "greet", inputs: { who: "x" } });
    expect(await call(kit.plan_repair, { run_id: done.run_id })).toMatchObject({
      error: "repair_refused",
      reason: "run_not_repairable",
    });
    expect(await call(kit.plan_repair, { run_id: "nope" })).toMatchObject({ error: "run_not_found" });
  });
});
