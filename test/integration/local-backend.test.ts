import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type LocalDecodeInfo, LocalDelegate } from "../../src/delegate/backends/local-delegate.js";
import { ANSWER_TOKENS, answerConfidence, valueTokens } from "../../src/confidence/answer-confidence.js";
import { buildProposalSchema } from "../../src/delegate/proposal-schema.js";
import { DelegateBackendError } from "../../src/errors/index.js";
import { writeTinyModel } from "../../src/testing/index.js";
import { buildSuiteCases, delegateBackendSuite } from "../delegate-backend-suite.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-local-"));
const model = join(dir, "tiny.gguf");
writeTinyModel(model, { seed: 1 });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

delegateBackendSuite({
  name: "LocalDelegate (tiny model, poolSize 2)",
  create: () => new LocalDelegate({ model, poolSize: 2, threads: 1 }),
  // Grammar-constrained, so answers parse; the tiny random model still runs out of tokens now and then.
  // Measured here: 10 of 200 (0.05).
  maxBackendErrorShare: 0.1,
});

describe("LocalDelegate on the tiny model", () => {
  it("writes the same bytes for the same seed and different ones for another", () => {
    const again = join(dir, "again.gguf");
    const other = join(dir, "other.gguf");
    writeTinyModel(again, { seed: 1 });
    writeTinyModel(other, { seed: 2 });
    const a = readFileSync(model);
    expect(readFileSync(again).equals(a)).toBe(true);
    expect(readFileSync(other).equals(a)).toBe(false);
    expect(a.length).toBeGreaterThan(100_000);
    expect(a.length).toBeLessThan(1_000_000);
  });

  it("node-llama-cpp loads the model and generates grammar-constrained JSON that parses", async () => {
    const { getLlama } = await import("node-llama-cpp");
    const llama = await getLlama({ gpu: false, build: "never" });
    const loaded = await llama.loadModel({ modelPath: model });
    const context = await loaded.createContext({ contextSize: 1024, threads: 1 });
    try {
      const grammar = await llama.createGrammarForJsonSchema({
        type: "object",
        properties: { city: { type: "string" }, days: { type: "integer" }, unit: { enum: ["c", "f"] } },
      });
      const { LlamaCompletion } = await import("node-llama-cpp");
      const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
      const text = await completion.generateCompletion("Weather in Paris as JSON:", {
        grammar,
        maxTokens: 200,
      });
      const value = grammar.parse(text) as { city: unknown; days: unknown; unit: unknown };
      expect(typeof value.city).toBe("string");
      expect(Number.isInteger(value.days)).toBe(true);
      expect(["c", "f"]).toContain(value.unit);
    } finally {
      await context.dispose();
      await loaded.dispose();
    }
  }, 60_000);

  it("confidence is the chosen candidate's share of a distribution over the candidates that sums to 1", async () => {
    const distributions: Map<string | null, number>[] = [];
    const delegate = new LocalDelegate({
      model,
      confidenceMethod: "choice",
      _internal: { onChoiceDistribution: (d) => distributions.push(d) },
    });
    try {
      for (const c of buildSuiteCases(8, 5)) {
        const proposal = await delegate.propose(c.request);
        const d = distributions.at(-1)!;
        expect([...d.keys()].sort()).toEqual([...c.request.tools.map((t) => t.name), null].sort());
        const sum = [...d.values()].reduce((a, b) => a + b, 0);
        expect(sum).toBeCloseTo(1, 9);
        expect(proposal.confidence).toBeCloseTo(d.get(proposal.name)!, 12);
      }
    } finally {
      await delegate.close();
    }
  }, 300_000);

  it("scores a single candidate against declining, and a forced decline with confidence 1", async () => {
    const delegate = new LocalDelegate({ model, confidenceMethod: "choice" });
    try {
      const [c] = buildSuiteCases(1, 1);
      const one = await delegate.propose(c!.request);
      expect(one.confidence).toBeGreaterThan(0);
      expect(one.confidence).toBeLessThan(1);
      // With no tools the grammar allows only `null`: a forced choice is certain, whatever the model's logits.
      const forced = await delegate.propose({ ...c!.request, tools: [] });
      expect(forced.name).toBeNull();
      expect(forced.confidence).toBe(1);
    } finally {
      await delegate.close();
    }
  }, 120_000);

  it("answer confidence (the default) combines the raw probabilities of the answer's value tokens", async () => {
    let tokens: { piece: string; grammar: number; raw?: number }[] = [];
    const delegate = new LocalDelegate({
      model,
      tokenProbability: true,
      _internal: { onTokens: (t) => (tokens = t) },
    });
    try {
      for (const c of buildSuiteCases(4, 3)) {
        const proposal = await delegate.propose(c.request);
        expect(tokens.map((t) => t.piece).join("")).toContain('"name"');
        for (const t of tokens) {
          expect(t.grammar).toBeGreaterThan(0);
          expect(t.grammar).toBeLessThanOrEqual(1 + 1e-6);
        }
        const mask = valueTokens(tokens.map((t) => t.piece));
        expect(mask.some(Boolean)).toBe(true); // the tool name (or null) at least
        const expected = answerConfidence(
          tokens.filter((_, i) => mask[i]).map((t) => t.raw!),
          ANSWER_TOKENS,
        );
        expect(proposal.confidence).toBeCloseTo(expected, 9);
      }
      // Off means null, whatever the method.
      const off = new LocalDelegate({ model, confidence: false });
      const [c] = buildSuiteCases(1, 1);
      expect((await off.propose(c!.request)).confidence).toBeNull();
      await off.close();
    } finally {
      await delegate.close();
    }
  }, 300_000);

  it("reads the raw probabilities during greedy generation: the same answers and scores as the re-read", async () => {
    // The onTokens hook decodes with llama.cpp's own grammar sampling and re-reads the raw probabilities in one
    // batch afterwards; the default reads them from each step and picks the likeliest token the grammar allows.
    const reread = new LocalDelegate({ model, tokenProbability: true, _internal: { onTokens: () => {} } });
    const during = new LocalDelegate({ model, tokenProbability: true });
    try {
      for (const c of buildSuiteCases(12, 5)) {
        const [a, b] = [
          await reread.propose(c.request).catch((e: Error) => e),
          await during.propose(c.request).catch((e: Error) => e),
        ];
        if (a instanceof Error || b instanceof Error) {
          // The tiny random model runs out of tokens now and then: then both must, on the same raw answer.
          expect(b).toBeInstanceOf(DelegateBackendError);
          expect((b as DelegateBackendError).raw).toBe((a as DelegateBackendError).raw);
          continue;
        }
        expect({ name: b.name, arguments: b.arguments }).toEqual({ name: a.name, arguments: a.arguments });
        expect(b.usage?.outputTokens).toBe(a.usage?.outputTokens);
        // A batch and single-token decodes round differently; the same numbers up to that.
        expect(b.confidence!).toBeCloseTo(a.confidence!, 2);
        expect(b.meanTokenProbability!).toBeCloseTo(a.meanTokenProbability!, 2);
      }
    } finally {
      await reread.close();
      await during.close();
    }
  }, 300_000);

  it("declines when the decline's probability at the choice point reaches declineThreshold", async () => {
    // The same requests at three thresholds: 0 declines whenever the decline is a candidate at all, 1 only
    // where it is certain, and 0.1 exactly when the share it read reaches 0.1 (else the call stands).
    const AT = 0.1;
    const share = { always: [] as (number | undefined)[], byDefault: [] as (number | undefined)[] };
    const hook = (key: keyof typeof share) => ({ onDeclineProbability: (p?: number) => share[key].push(p) });
    const always = new LocalDelegate({ model, declineThreshold: 0, _internal: hook("always") });
    const never = new LocalDelegate({ model, declineThreshold: 1 });
    const byDefault = new LocalDelegate({ model, declineThreshold: AT, _internal: hook("byDefault") });
    let declined = 0;
    try {
      for (const c of buildSuiteCases(6, 3)) {
        const forced = await always.propose(c.request).catch((e: Error) => e);
        if (!(forced instanceof Error) && share.always.at(-1)! > 0) {
          expect(forced).toMatchObject({ name: null, arguments: {} });
          declined++;
        }
        const plain = await never.propose(c.request).catch((e: Error) => e);
        const before = share.byDefault.length;
        const tuned = await byDefault.propose(c.request).catch((e: Error) => e);
        if (tuned instanceof Error) continue; // the tiny model runs out of tokens now and then
        expect(share.byDefault).toHaveLength(before + 1);
        const p = share.byDefault.at(-1);
        if (p === undefined) continue; // neither choice among the 40 likeliest tokens: greedy decided
        expect(p).toBeGreaterThanOrEqual(0);
        expect(p).toBeLessThanOrEqual(1);
        if (p >= AT) expect(tuned).toMatchObject({ name: null, arguments: {} });
        else if (!(plain instanceof Error)) expect(tuned.name).toBe(plain.name);
      }
      // The random model rarely puts `n` among its 40 likeliest bytes, but the share was read on some answers.
      expect(share.byDefault.some((p) => p !== undefined)).toBe(true);
      expect(declined).toBeLessThanOrEqual(6);
      expect(() => new LocalDelegate({ model, declineThreshold: 2 })).toThrow(/declineThreshold/);
    } finally {
      await Promise.all([always.close(), never.close(), byDefault.close()]);
    }
  }, 300_000);

  it("appends the runs the grammar forces in batches: the same answers and confidences in fewer batches", async () => {
    // The tiny random model's answers are arbitrary, so any token the forced run gets wrong would show here.
    const stats: LocalDecodeInfo[][] = [[], []];
    const [stepwise, jumping] = [false, true].map(
      (jumpForward, k) =>
        new LocalDelegate({ model, jumpForward, _internal: { onDecode: (i) => stats[k]!.push(i) } }),
    );
    try {
      for (const c of buildSuiteCases(8, 5)) {
        const a = await stepwise!.propose(c.request).catch((e: Error) => e);
        const b = await jumping!.propose(c.request).catch((e: Error) => e);
        if (a instanceof Error || b instanceof Error) {
          expect((b as DelegateBackendError).raw).toBe((a as DelegateBackendError).raw);
          continue;
        }
        expect({ name: b.name, arguments: b.arguments }).toEqual({ name: a.name, arguments: a.arguments });
        expect(b.usage?.outputTokens).toBe(a.usage?.outputTokens);
        expect(b.confidence).toBe(a.confidence);
      }
      const sum = (k: number, f: (i: LocalDecodeInfo) => number) => stats[k]!.reduce((n, i) => n + f(i), 0);
      expect(sum(0, (i) => i.forced)).toBe(0);
      expect(sum(1, (i) => i.forced)).toBeGreaterThan(0);
      expect(sum(1, (i) => i.batches)).toBeLessThan(sum(0, (i) => i.batches));
      // Every token is a step of its own, or came in a forced run.
      for (const i of stats[1]!) expect(i.batches).toBeGreaterThanOrEqual(i.pieces.length - i.forced);
    } finally {
      await Promise.all([stepwise!.close(), jumping!.close()]);
    }
  }, 300_000);

  it("evaluates the shared prefix once and copies it into the pool's other sequences", async () => {
    // Four tasks for one node: the same tools (the shared prefix), each its own instruction.
    const [first, ...rest] = buildSuiteCases(4, 5);
    const cases = [
      first!,
      ...rest.map((c) => ({ ...c, request: { ...c.request, tools: first!.request.tools } })),
    ];
    const seen: LocalDecodeInfo[] = [];
    const pooled = new LocalDelegate({ model, poolSize: 4, _internal: { onDecode: (i) => seen.push(i) } });
    // One sequence evaluating everything itself, the answer's opening included (a pool takes it in its own batch).
    const alone = new LocalDelegate({ model, _internal: { openingInPromptBatch: false } });
    try {
      const together = await Promise.all(cases.map((c) => pooled.propose(c.request).catch((e: Error) => e)));
      // One sequence evaluated the tools' prefix; the three that started with it copied its state.
      expect(seen.map((i) => i.prefix).sort()).toEqual(["copied", "copied", "copied", "evaluated"]);
      for (const i of seen) expect(i.sharedPromptTokens).toBeGreaterThan(i.promptTokens / 2);
      for (const i of seen) expect(i.reusedPromptTokens).toBeGreaterThanOrEqual(i.sharedPromptTokens - 1);
      // Answers as from one sequence that evaluated everything itself.
      for (const [k, c] of cases.entries()) {
        const one = await alone.propose(c.request).catch((e: Error) => e);
        const got = together[k]!;
        if (one instanceof Error || got instanceof Error) {
          expect((got as DelegateBackendError).raw).toBe((one as DelegateBackendError).raw);
          continue;
        }
        expect({ name: got.name, arguments: got.arguments }).toEqual({
          name: one.name,
          arguments: one.arguments,
        });
      }
      seen.length = 0;
      await pooled.propose(cases[0]!.request).catch(() => undefined);
      expect(seen[0]?.prefix).toBe("held");
    } finally {
      await Promise.all([pooled.close(), alone.close()]);
    }
  }, 300_000);

  it("reuses the prompt prefix of the previous proposal with the same tools", async () => {
    const delegate = new LocalDelegate({ model });
    try {
      const [a, b] = buildSuiteCases(2, 5);
      const first = await delegate.propose(a!.request);
      const second = await delegate.propose(b!.request);
      expect(first.usage?.cachedInputTokens).toBe(0);
      expect(second.usage?.cachedInputTokens).toBeGreaterThan(first.usage!.inputTokens! / 2);
    } finally {
      await delegate.close();
    }
  }, 120_000);

  it("self-checks each call on a sequence of its own: declines below the threshold, else lowers the confidence", async () => {
    // Threshold 0 keeps every call (its confidence times the score); 1 declines every call scored below 1. The
    // check must not evict the proposals' cached prefix: the second proposal still reuses the first's.
    const keep = new LocalDelegate({ model, selfCheck: 0 });
    const strict = new LocalDelegate({ model, selfCheck: 1 });
    try {
      const cases = buildSuiteCases(4, 7);
      let checked = 0;
      const scores = new Map<number, number>();
      for (const [i, c] of cases.entries()) {
        const kept = await keep.propose(c.request).catch((e: Error) => e);
        if (kept instanceof Error || kept.name === null) continue;
        checked++;
        const check = kept.selfCheck!;
        scores.set(i, check.score);
        expect(check.score).toBeGreaterThanOrEqual(0);
        expect(check.score).toBeLessThanOrEqual(1);
        expect(kept.confidence).toBeCloseTo(check.callConfidence! * check.score, 12);
        if (i > 0) expect(kept.usage!.cachedInputTokens).toBeGreaterThan(kept.usage!.inputTokens! / 2);
        const declined = await strict.propose(c.request);
        if (check.score < 1) {
          expect(declined).toMatchObject({ name: null, arguments: {}, confidence: null });
          expect(declined.selfCheck).toMatchObject({ declined: kept.name, threshold: 1 });
        }
      }
      expect(checked).toBeGreaterThan(0);
      // The same call scores the same whatever was checked before it (measured scores carry over).
      const [at, before] = [...scores][0]!;
      const again = await keep.propose(cases[at]!.request);
      expect(again.selfCheck?.score).toBe(before);
      expect(() => new LocalDelegate({ model, selfCheck: 1.5 })).toThrow(/selfCheck/);
    } finally {
      await Promise.all([keep.close(), strict.close()]);
    }
  }, 300_000);

  it("reports schema features the grammar cannot express, and refuses them at propose time", async () => {
    const delegate = new LocalDelegate({ model });
    const tools = [
      {
        name: "t",
        description: "d",
        parameters: { type: "object", properties: { x: { not: { type: "string" } } } },
      },
    ];
    const schema = buildProposalSchema(tools);
    expect(delegate.checkSchema(schema)).toMatch(/`not` at \/oneOf\/0\/properties\/arguments\/properties\/x/);
    expect(
      delegate.checkSchema(
        buildProposalSchema([
          {
            name: "ok",
            description: "d",
            parameters: { type: "object", properties: { n: { type: "integer", minimum: 3 } } },
          },
        ]),
      ),
    ).toBeUndefined();
    await expect(delegate.propose({ instruction: "x", facts: {}, tools, schema })).rejects.toSatisfy((e) =>
      DelegateBackendError.isInstance(e),
    );
    await delegate.close();
  }, 60_000);

  it("fails with a DelegateBackendError naming the file when the model does not exist", async () => {
    const delegate = new LocalDelegate({ model: join(dir, "missing.gguf") });
    await expect(delegate.propose(buildSuiteCases(1, 5)[0]!.request)).rejects.toThrow(
      /could not load its model/,
    );
    await delegate.close();
  });
});
