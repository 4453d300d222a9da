/**
 * In-context examples (`withExamples`): which past decisions a model is shown, in what order, and what is never
 * shown — on the real encoder and the alert-triage example's labelled decisions.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultDelegateSpecs } from "../compose/delegate-specs.js";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "../delegate/protocol.js";
import { buildPrompt, exampleChars, inputChars } from "../runtime/tool-call-prompt.js";
import { alertTriageExamples, alertTriageTools, ALERT_TRIAGE_DATA } from "./alert-triage.fixture.js";
import { encoderModelForTests } from "./encoder-model-path.js";
import { GgufTextEncoder } from "./gguf-text-encoder.js";
import { withExamples } from "./in-context-examples.js";
import type { TrainingExample } from "./training-examples.js";

const specs = defaultDelegateSpecs();
const createDelegateFromSpec = (spec: string) => specs.create(spec);

/** The backend under the wrapper: records what it was asked and declines. */
class Recorder implements ToolCallDelegate {
  readonly name = "recorder";
  readonly maxTools = 8;
  asked: ProposeRequest[] = [];
  closed = false;
  constructor(readonly maxInputChars = 4000) {}
  async propose(request: ProposeRequest): Promise<Proposal> {
    this.asked.push(request);
    return { name: null, arguments: {}, confidence: null, backend: this.name, latencyMs: 0 };
  }
  async close() {
    this.closed = true;
  }
}

// A slice of the example's decisions: enough neighbours to choose from, cheap to embed on two cores.
const train = alertTriageExamples("train").slice(0, 120);
const tools = alertTriageTools();
let encoder: GgufTextEncoder;

beforeAll(async () => {
  encoder = await GgufTextEncoder.open(encoderModelForTests());
});
afterAll(() => encoder.close());

function request(example: TrainingExample): ProposeRequest {
  return {
    instruction: example.instruction,
    facts: example.facts,
    tools,
    context: { runId: "r1", nodeId: "triage_items", item: 0 },
  };
}

describe("withExamples", () => {
  it("shows the k decisions most like the task, most similar next to the question, and traces their similarity", async () => {
    const inner = new Recorder();
    const delegate = withExamples(inner, { source: { examples: train }, encoder, k: 3 });
    const task = {
      ...train[0]!,
      instruction: train[0]!.instruction.replace(
        /:.*/,
        ": Checkout API error rate at 70% for 25 minutes in eu-west-1",
      ),
    };
    const proposal = await delegate.propose(request(task));
    const shown = inner.asked[0]!.examples!;
    expect(shown).toHaveLength(3);
    expect(proposal.examples).toHaveLength(3);
    // Most similar first, and similar in fact: the closest examples are error-rate alerts too.
    expect([...proposal.examples!].sort((a, b) => b - a)).toEqual(proposal.examples);
    expect(shown[0]!.instruction).toMatch(/error rate/i);
    const { turns } = buildPrompt({ ...inner.asked[0]!, examples: shown });
    expect(turns.at(-1)!.user).toContain(shown[0]!.instruction);
    expect(JSON.parse(turns.at(-1)!.assistant)).toEqual({
      name: shown[0]!.call.name,
      arguments: shown[0]!.call.arguments,
    });
  });

  it("never shows the input being decided, even when it is among the decisions", async () => {
    const inner = new Recorder();
    const delegate = withExamples(inner, { source: { examples: train }, encoder, k: 4 });
    for (const example of train.slice(0, 5)) await delegate.propose(request(example));
    inner.asked.forEach((asked, i) => {
      const own = train[i]!;
      for (const shown of asked.examples ?? [])
        expect(
          shown.instruction === own.instruction && JSON.stringify(shown.facts) === JSON.stringify(own.facts),
        ).toBe(false);
    });
  });

  it("leaves out an example that carries a secret, and one whose tool the node does not offer", async () => {
    const base = train[0]!;
    const secret: TrainingExample = {
      ...base,
      instruction: `${base.instruction} (login with password=Hunter2Hunter2)`,
    };
    const otherTool: TrainingExample = {
      ...base,
      instruction: `${base.instruction}!`,
      call: { name: "drop_tables", arguments: {} },
    };
    const inner = new Recorder();
    const delegate = withExamples(inner, {
      source: { examples: [secret, otherTool, train[1]!] },
      encoder,
      k: 4,
    });
    await delegate.propose(request({ ...base, instruction: `${base.instruction} again` }));
    const shown = inner.asked[0]!.examples ?? [];
    expect(shown.map((e) => e.instruction)).toEqual([train[1]!.instruction]);
  });

  it("reads a node's decisions from traces, as deputy distill does: other nodes' traces are not its examples", async () => {
    const inner = new Recorder();
    const { readTraces } = await import("../traces/read-traces.js");
    const traces = readTraces(ALERT_TRIAGE_DATA.train).traces.slice(0, 120);
    const delegate = withExamples(inner, { source: { traces }, encoder, k: 2 });
    await delegate.propose(request(train[3]!));
    await delegate.propose({ ...request(train[3]!), context: { runId: "r1", nodeId: "other_node" } });
    expect(inner.asked[0]!.examples).toHaveLength(2);
    expect(inner.asked[1]!.examples).toBeUndefined();
  });

  it("fits the examples and the task into the backend's maxInputChars", async () => {
    const task = request(train[7]!);
    const room = inputChars(task.instruction, task.facts) + exampleChars(train[0]!) * 1.5;
    const inner = new Recorder(Math.round(room));
    const delegate = withExamples(inner, { source: { examples: train }, encoder, k: 4 });
    await delegate.propose(task);
    const shown = inner.asked[0]!.examples ?? [];
    expect(shown.length).toBeLessThan(4);
    const used = inputChars(task.instruction, task.facts) + shown.reduce((n, e) => n + exampleChars(e), 0);
    expect(used).toBeLessThanOrEqual(inner.maxInputChars);
  });

  it("k=0 and an empty bank ask the backend as it was asked", async () => {
    for (const options of [
      { source: { examples: train }, k: 0 },
      { source: { examples: [] as TrainingExample[] } },
    ]) {
      const inner = new Recorder();
      const proposal = await withExamples(inner, { ...options, encoder }).propose(request(train[0]!));
      expect(inner.asked[0]!.examples).toBeUndefined();
      expect(proposal.examples).toBeUndefined();
    }
  });

  it("any task and any labelled rows: a proposal or the backend's own error, never a crash, always within bounds", async () => {
    const json = fc.dictionary(
      fc.string({ maxLength: 8 }),
      fc.oneof(fc.string({ maxLength: 40 }), fc.integer()),
      {
        maxKeys: 3,
      },
    );
    const row = fc.record({
      instruction: fc.string({ maxLength: 200 }),
      facts: json,
      call: fc.record({
        name: fc.oneof(
          fc.constant(null),
          fc.constantFrom(...tools.map((t) => t.name)),
          fc.string({ maxLength: 10 }),
        ),
        arguments: json,
      }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 6 }),
        row,
        fc.integer({ min: 1, max: 2000 }),
        async (rows, task, max) => {
          const inner = new Recorder(max);
          const examples = rows.map((r) => ({ ...r, tools, source: "person" as const }));
          await withExamples(inner, { source: { examples }, encoder, k: 3 }).propose({
            instruction: task.instruction,
            facts: task.facts,
            tools,
            context: { runId: "r", nodeId: "n" },
          });
          const shown = inner.asked[0]!.examples ?? [];
          expect(shown.length).toBeLessThanOrEqual(3);
          const used =
            inputChars(task.instruction, task.facts) + shown.reduce((n, e) => n + exampleChars(e), 0);
          if (shown.length > 0) expect(used).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("--delegate …,examples=TRACES.jsonl", () => {
  const script = join(mkdtempSync(join(tmpdir(), "deputy-examples-")), "proposals.jsonl");
  writeFileSync(
    script,
    `${JSON.stringify({ node: "triage_items", proposal: { name: null, arguments: {} } })}\n`,
  );

  it("wraps any kind, and closes the encoder it opened with the delegate", async () => {
    const traces = join(script, "..", "traces.jsonl");
    writeFileSync(traces, readFileSync(ALERT_TRIAGE_DATA.train, "utf8").split("\n").slice(0, 40).join("\n"));
    const delegate = await createDelegateFromSpec(
      `scripted=${script},examples=${ALERT_TRIAGE_DATA.train},k=2`,
    );
    const proposal = await delegate.propose(request(train[2]!));
    expect(proposal.examples).toHaveLength(2);
    await delegate.close();
  });

  it("a missing trace file or a bad k is one clear error before anything runs", async () => {
    await expect(createDelegateFromSpec(`scripted=${script},examples=/nope/traces.jsonl`)).rejects.toThrow(
      /\/nope\/traces.jsonl/,
    );
    await expect(
      createDelegateFromSpec(`scripted=${script},examples=${ALERT_TRIAGE_DATA.train},k=two`),
    ).rejects.toThrow(/k in --delegate/);
  });
});
