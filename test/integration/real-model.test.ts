// Real weights: Qwen2.5-Coder-0.5B-Instruct (Q4_K_M), fetched by `bash scripts/models.sh` (npm test runs it),
// through both llama.cpp backends with deterministic settings (greedy, one thread, fixed seed). The assertions
// are what this model meets today (see docs/quality.md); the random-weight tiny model stays for the fast
// structural tests. DEPUTY_REAL_SWEEP=all runs the verdict sweep over the whole shared BFCL set (~400 proposals;
// minutes on a quiet machine) instead of the labelled set.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptGate, VERDICTS } from "../../src/delegate/accept-gate.js";
import { calibratedConfidence, readDelegateCalibration } from "../../src/confidence/delegate-calibration.js";
import { answerConfidenceOfTokens } from "../../src/confidence/answer-confidence.js";
import { LlamaServerDelegate } from "../../src/delegate/backends/llama-server-delegate.js";
import { LocalDelegate } from "../../src/delegate/backends/local-delegate.js";
import { bfclQuestion, bfclToToolSpec } from "../../src/eval/bfcl.js";
import { buildPrompt } from "../../src/runtime/tool-call-prompt.js";
import type { Proposal } from "../../src/delegate/protocol.js";
import { type BfclCase, bfclCases, loadBfclSuite } from "../../src/eval/bfcl-suite.js";
import { evaluateCase, type EvalRecord } from "../../src/eval/evaluate-case.js";
import { auroc } from "../../src/confidence/score-metrics.js";
import { findLlamaServerBinary, findRealModel, startLlamaServer } from "../../src/testing/index.js";
import type { LlamaServerProcess } from "../../src/testing/index.js";
import { BFCL_DIR } from "../bfcl-fixtures.js";

const model = findRealModel("qwen2.5-coder-0.5b-instruct");
if (!model) throw new Error("Qwen2.5-Coder-0.5B-Instruct not cached: run `bash scripts/models.sh` first.");
if (!findLlamaServerBinary())
  throw new Error("llama-server not found: run `bash scripts/llama-server.sh` first.");

/** One obvious tool, arguments spelled out in the question. */
const EASY = ["simple_python_2", "simple_python_12", "simple_python_20"];
/** A fixed labelled set: the easy calls and a multi-tool one it gets right; three it gets wrong. */
const RIGHT = [...EASY, "multiple_4"];
const WRONG = ["irrelevance_22", "irrelevance_30", "live_irrelevance_88-2-76"];

const suite = bfclCases(loadBfclSuite(BFCL_DIR));
const byId = new Map(suite.map((c) => [c.sample.id, c]));
const pick = (ids: string[]): BfclCase[] => ids.map((id) => byId.get(id)!);
const calibration = readDelegateCalibration(
  new URL("../../bench/results/qwen2.5-coder-0.5b/calibration.json", import.meta.url).pathname,
);
const settings = { threads: 1, seed: 1, temperature: 0, maxInputChars: 4000 } as const;
/** The decline threshold measured for the 0.5B model (docs/quality.md, "Declining"). */
const DECLINE_THRESHOLD_05 = 0.15;

describe("Qwen2.5-Coder-0.5B-Instruct through LocalDelegate (real weights)", () => {
  // The committed calibration maps the choice confidence (it predates the answer confidence); the answer
  // confidence, deputy's default, is computed from the same proposal's raw token probabilities (token hook).
  let tokens: { piece: string; grammar: number; raw?: number }[] = [];
  const local = new LocalDelegate({
    model,
    tokenProbability: true,
    confidenceMethod: "choice",
    _internal: { onTokens: (t) => (tokens = t) },
    ...settings,
  });
  const records = new Map<string, EvalRecord & { calibrated: number | null; answer: number | null }>();
  afterAll(() => local.close());

  it(
    "answers easy BFCL cases exactly right, and the gate accepts them",
    async () => {
      for (const c of pick(RIGHT.concat(WRONG))) {
        const record = await evaluateCase(local, c);
        const score = record.outcome === "proposed" ? calibratedConfidence(calibration, record) : null;
        const answer =
          record.outcome === "proposed"
            ? answerConfidenceOfTokens(
                tokens.map((t) => t.piece),
                tokens.map((t) => t.raw!),
              )
            : null;
        records.set(c.sample.id, { ...record, calibrated: score, answer });
      }
      for (const id of EASY) {
        const r = records.get(id)!;
        expect(r, id).toMatchObject({ outcome: "proposed", correct: true });
        expect(verdictOf(byId.get(id)!, r), id).toBe("accepted");
      }
    },
    30 * 60_000,
  );

  it("scores the labelled right calls above the wrong ones (calibrated confidence)", () => {
    const labelled = [...records.values()].filter((r) => r.calibrated !== null);
    expect(labelled.map((r) => r.id).sort()).toEqual([...RIGHT, ...WRONG].sort());
    // The labels are what the model did in the evaluation; the calibration file was fitted without these ids.
    for (const id of RIGHT) expect(records.get(id)!.correct, id).toBe(true);
    for (const id of WRONG) expect(records.get(id)!.correct, id).toBe(false);
    const outcomes = labelled.map((r) => ({ score: r.calibrated!, correct: r.correct }));
    expect(auroc(outcomes)).toBeGreaterThanOrEqual(0.8);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(outcomes.filter((o) => o.correct).map((o) => o.score))).toBeGreaterThan(
      mean(outcomes.filter((o) => !o.correct).map((o) => o.score)),
    );
  });

  it("scores the labelled right calls above the wrong ones (answer confidence, the default)", () => {
    const outcomes = [...records.values()]
      .filter((r) => r.answer !== null)
      .map((r) => ({ score: r.answer!, correct: r.correct }));
    expect(outcomes).toHaveLength(RIGHT.length + WRONG.length);
    expect(auroc(outcomes)).toBeGreaterThanOrEqual(0.8);
    // Every easy call is one the model is sure of under the grammar.
    for (const id of EASY) expect(records.get(id)!.answer, id).toBeGreaterThan(0.9);
  });

  it(
    "the default delegate reads the same answer confidence from its own generation steps",
    async () => {
      // The hook delegate above decodes with llama.cpp's grammar sampling and re-reads the raw probabilities in a
      // second batch; the default reads them while it decodes. Same calls; scores equal up to the rounding of a
      // batch against single-token decodes (≤ 0.05; median 0.001 on BFCL).
      const plain = new LocalDelegate({ model, ...settings });
      try {
        for (const c of pick([...RIGHT, ...WRONG])) {
          const r = records.get(c.sample.id)!;
          const p = await evaluateCase(plain, c);
          expect({ name: p.name, arguments: p.arguments }, c.sample.id).toEqual({
            name: r.name,
            arguments: r.arguments,
          });
          expect(Math.abs(p.confidence! - r.answer!), c.sample.id).toBeLessThan(0.05);
        }
      } finally {
        await plain.close();
      }
    },
    30 * 60_000,
  );

  it(
    "gives every proposal a gate verdict and never crashes",
    async () => {
      const sweep = process.env.DEPUTY_REAL_SWEEP === "all" ? suite : pick([...RIGHT, ...WRONG]);
      for (const c of sweep) {
        const r = records.get(c.sample.id) ?? (await evaluateCase(local, c));
        expect(VERDICTS, c.sample.id).toContain(verdictOf(c, r));
      }
    },
    120 * 60_000,
  );
});

describe("declining on real weights: Qwen2.5-Coder-0.5B-Instruct, LocalDelegate, declineThreshold", () => {
  // Questions no offered tool fits, on which the 0.5B model's probability of declining at the choice point was
  // 0.21-0.22 (bench/results/qwen2.5-coder-0.5b/decline-new.jsonl), and easy ones where it was 0.05-0.11: a
  // threshold between them declines the first and still answers the second. Before the decline was listed like
  // a tool and read at the choice point, the model called a tool on every one of these.
  const DECLINED = ["irrelevance_11", "irrelevance_14", "live_irrelevance_57-2-45"];
  const ANSWERED = ["simple_python_2", "simple_python_12", "multiple_3"];
  const shares = new Map<string, number | undefined>();
  const written = new Map<string, string>();
  let current = "";
  const local = new LocalDelegate({
    model,
    ...settings,
    declineThreshold: DECLINE_THRESHOLD_05,
    _internal: {
      onDeclineProbability: (p) => shares.set(current, p),
      onDecode: (i) => written.set(current, i.pieces.join("")),
    },
  });
  afterAll(() => local.close());

  it(
    "declines the fixed irrelevance questions and still answers the easy ones exactly",
    async () => {
      for (const c of pick([...DECLINED, ...ANSWERED])) {
        current = c.sample.id;
        const r = await evaluateCase(local, c);
        expect(r.outcome, current).toBe("proposed");
        if (DECLINED.includes(current)) {
          expect(r.name, current).toBeNull();
          expect(verdictOf(c, r), current).toBe("declined");
          expect(shares.get(current), current).toBeGreaterThanOrEqual(DECLINE_THRESHOLD_05);
          // Decoding stopped at the decided `null`: a decline's empty arguments are not decoded token by token.
          expect(written.get(current), current).toMatch(/^\s*\{\s*"name"\s*:\s*null\W*$/);
        } else {
          expect(r, current).toMatchObject({ correct: true });
          expect(shares.get(current), current).toBeLessThan(DECLINE_THRESHOLD_05);
        }
      }
    },
    30 * 60_000,
  );
});

const model15 = findRealModel("qwen2.5-coder-1.5b-instruct");

// The 1.5B model is 1.1 GB (33–84 s to fetch here, ~2x the 0.5B's time a proposal); `npm test` fetches it
// (`bash scripts/models.sh qwen2.5-coder-1.5b-instruct`). Run on its own, vitest skips these where it is not cached.
describe.skipIf(!model15)("Qwen2.5-Coder-1.5B-Instruct through LocalDelegate (real weights)", () => {
  it(
    "answers the easy BFCL cases exactly right, and the gate accepts them",
    async () => {
      const local = new LocalDelegate({ model: model15!, ...settings });
      try {
        for (const c of pick(EASY)) {
          const r = await evaluateCase(local, c);
          expect(r, c.sample.id).toMatchObject({ outcome: "proposed", correct: true });
          expect(verdictOf(c, r), c.sample.id).toBe("accepted");
        }
      } finally {
        await local.close();
      }
    },
    30 * 60_000,
  );
});

describe("Qwen2.5-Coder-0.5B-Instruct through LlamaServerDelegate (llama-server --jinja)", () => {
  let server: LlamaServerProcess;
  beforeAll(async () => {
    server = await startLlamaServer({ model, threads: 1, parallel: 1, contextSize: 4096 });
  }, 120_000);
  afterAll(() => server?.stop());

  it("renders deputy's prompt with the model's own ChatML template", async () => {
    const c = byId.get("simple_python_2")!;
    const { system, user } = buildPrompt({
      instruction: bfclQuestion(c.sample),
      facts: {},
      tools: c.sample.function.map(bfclToToolSpec),
    });
    const res = await fetch(`${server.baseUrl}/apply-template`, {
      method: "POST",
      body: JSON.stringify({
        messages: [
          { role: "system", content: system },
          { role: "user", content: user },
        ],
      }),
    });
    const { prompt } = (await res.json()) as { prompt: string };
    expect(prompt).toBe(
      `<|im_start|>system\n${system}<|im_end|>\n<|im_start|>user\n${user}<|im_end|>\n<|im_start|>assistant\n`,
    );
  });

  it(
    "answers the easy BFCL cases exactly right",
    async () => {
      const delegate = new LlamaServerDelegate({
        baseUrl: server.baseUrl,
        timeoutMs: 600_000,
        maxInputChars: 4000,
      });
      for (const c of pick(EASY)) {
        const r = await evaluateCase(delegate, c);
        expect(r, c.sample.id).toMatchObject({ outcome: "proposed", correct: true });
        expect(r.confidence).toBeGreaterThan(0.5);
      }
      await delegate.close();
    },
    30 * 60_000,
  );
});

function verdictOf(c: BfclCase, r: EvalRecord): string {
  const tools = c.sample.function.map(bfclToToolSpec);
  const proposal: Proposal | undefined =
    r.outcome === "proposed"
      ? {
          name: r.name ?? null,
          arguments: r.arguments ?? {},
          confidence: r.confidence,
          backend: r.backend,
          latencyMs: r.latencyMs,
        }
      : undefined;
  return acceptGate({
    proposal,
    ...(r.outcome === "backend_error" ? { backendError: new Error(r.error) } : {}),
    candidates: tools.map((t) => t.name),
    findTool: (name) => {
      const spec = tools.find((t) => t.name === name);
      return spec
        ? { ...spec, delegateDescription: undefined, delegateSafe: true, sensitive: [], run: () => null }
        : undefined;
    },
    allowSideEffects: { node: false, host: false },
  }).verdict;
}
