// The self-check on real weights: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M), built from the spec a user writes with
// the measured threshold (`selfcheck=0.68`, bench/results/relevance/protocol-holdout-b.md), greedy, one thread.
// A BFCL question no offered tool fits, which the model answers with a call it is fairly sure of (answer
// confidence 0.82) and which no relevance or decline rule catches, is declined by the check — the proposal says
// why and which call it replaced — while an easy call stands, exactly right, its confidence the call's times
// the check's score. Skipped when the 1.5B model is not cached (`bash scripts/models.sh qwen2.5-coder-1.5b-instruct`).
import { afterAll, describe, expect, it } from "vitest";
import { createDelegateSpecRegistry } from "../../src/delegate/backends/register-specs.js";
import type { Proposal, ToolCallDelegate } from "../../src/delegate/protocol.js";
import { bfclQuestion, bfclToToolSpec } from "../../src/eval/bfcl.js";
import { bfclCases, loadBfclSuite } from "../../src/eval/bfcl-suite.js";
import { evaluateCase } from "../../src/eval/evaluate-case.js";
import { findRealModel } from "../../src/testing/index.js";
import { selfCheckPrompt, selfCheckScore } from "../../src/delegate/backends/local-self-check.js";
import { BFCL_DIR } from "../bfcl-fixtures.js";

const specs = createDelegateSpecRegistry();
const createDelegateFromSpec = (spec: string) => specs.create(spec);

const model = findRealModel("qwen2.5-coder-1.5b-instruct");
const suite = new Map(bfclCases(loadBfclSuite(BFCL_DIR)).map((c) => [c.sample.id, c]));

/** The self-check's score for one call, read as bench/quality-selfcheck.ts reads it: a model and context of its own. */
async function freshScore(fn: { name: string; description?: string }, args: unknown): Promise<number> {
  const { getLlama, resolveChatWrapper } = await import("node-llama-cpp");
  const llama = await getLlama({ gpu: false, build: "never" });
  const loaded = await llama.loadModel({ modelPath: model! });
  const context = await loaded.createContext({ contextSize: 4096, threads: 1 });
  try {
    const prompt = selfCheckPrompt(bfclQuestion(suite.get("simple_python_104")!.sample), fn, args);
    return await selfCheckScore(loaded, resolveChatWrapper(loaded), context.getSequence(), prompt);
  } finally {
    await context.dispose();
    await loaded.dispose();
  }
}

describe.skipIf(!model)("the self-check on Qwen2.5-Coder-1.5B-Instruct (real weights)", () => {
  let delegate: ToolCallDelegate | undefined;
  const open = async () =>
    (delegate ??= await createDelegateFromSpec(`local=${model},threads=1,maxInputChars=4000,selfcheck=0.68`));
  afterAll(() => delegate?.close());

  it(
    "declines a confident call on a question no offered tool fits, recording the call it replaced",
    async () => {
      const c = suite.get("irrelevance_11")!;
      const proposal = await (
        await open()
      ).propose({
        instruction: bfclQuestion(c.sample),
        facts: {},
        tools: c.sample.function.map(bfclToToolSpec),
      });
      expect(proposal.name).toBeNull();
      expect(proposal.confidence).toBeNull();
      expect(proposal.selfCheck).toMatchObject({ threshold: 0.68, declined: c.sample.function[0]!.name });
      expect(proposal.selfCheck!.score).toBeLessThan(0.68);
      // The model itself was sure enough of its call that the confidence alone would not have stopped it.
      expect(proposal.selfCheck!.callConfidence).toBeGreaterThan(0.5);
    },
    15 * 60_000,
  );

  it(
    "keeps an easy call exactly right, its confidence lowered by the check's score",
    async () => {
      const d = await open();
      let proposal: Proposal | undefined;
      // The same delegate, keeping the proposal evaluateCase judges.
      const keeping: ToolCallDelegate = {
        name: d.name,
        maxTools: d.maxTools,
        maxInputChars: d.maxInputChars,
        propose: async (request) => (proposal = await d.propose(request)),
        close: async () => {},
      };
      const c = suite.get("simple_python_104")!;
      const record = await evaluateCase(keeping, c);
      expect([record.outcome, record.correct]).toEqual(["proposed", true]);
      const check = proposal!.selfCheck!;
      expect(check.score).toBeGreaterThanOrEqual(0.68);
      // Checked right after the decline above, it scores what the same question scores on a fresh sequence of a
      // fresh context, as the measurement reads it (bench/quality-selfcheck.ts): a score does not depend on the
      // check before. (Compared on this CPU: the recorded 0.8831 came from another one; this AMD EPYC reads
      // 0.8799, about 0.003 apart, from the same weights and prompt.)
      expect(check.score).toBeCloseTo(await freshScore(c.sample.function[0]!, proposal!.arguments), 3);
      expect(check.declined).toBeUndefined();
      expect(proposal!.confidence).toBeCloseTo(check.callConfidence! * check.score, 10);
    },
    15 * 60_000,
  );
});
