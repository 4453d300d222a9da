// Jump-forward decoding on real weights: Qwen2.5-Coder-0.5B-Instruct (`bash scripts/models.sh`; skipped when it
// is not cached) proposes for a fixed labelled set — the first alert-triage held-out items, one tool set — with
// drafted runs (the answer before's structure, the prompt's values, forced text) appended in batches and step
// by step. The calls and their confidences must be the same bit for bit (each batch is small enough for
// llama.cpp to compute like single steps); the batches fewer. And against
// decoding every token of the answer: stopping once only closing brackets may follow gives the same calls and
// confidences from fewer tokens. The answer's opening (`{"name":` as the answer before wrote it) rides in the
// prompt's batch only for a model that writes the choice in a token of its own: the 0.5B writes `":"`, so its
// decoding is the same with the opening left out; the 1.5B (`": `, cached by `npm test`) takes it there, with and
// without jump-forward alike.
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { type LocalDecodeInfo, LocalDelegate } from "../../src/delegate/backends/local-delegate.js";
import type { ProposeRequest } from "../../src/delegate/protocol.js";
import { findRealModel } from "../../src/testing/index.js";

const model = findRealModel("qwen2.5-coder-0.5b-instruct");
const ITEMS = 6;
const labelled = readFileSync(
  new URL("../../examples/alert-triage/data/heldout.jsonl", import.meta.url),
  "utf8",
)
  .trim()
  .split("\n")
  .slice(0, ITEMS)
  .map((line) => JSON.parse(line) as ProposeRequest & { finalCall: { name: string } });

describe.skipIf(!model)("jump-forward decoding on Qwen2.5-Coder-0.5B-Instruct (real weights)", () => {
  const infos: LocalDecodeInfo[][] = [[], [], [], []];
  const [stepwise, jumping, whole, apart] = [false, true, false, true].map(
    (jumpForward, k) =>
      new LocalDelegate({
        model: model!,
        threads: 1,
        jumpForward,
        _internal: {
          onDecode: (i) => infos[k]!.push(i),
          decodeWholeAnswer: k === 2,
          openingInPromptBatch: k !== 3,
        },
      }),
  );
  afterAll(() => Promise.all([stepwise!.close(), jumping!.close(), whole!.close(), apart!.close()]));

  it(
    "proposes the same calls with the same confidences with the forced runs batched, in fewer batches",
    async () => {
      let right = 0;
      for (const item of labelled) {
        const request = { instruction: item.instruction, facts: item.facts, tools: item.tools };
        const a = await stepwise!.propose(request);
        const b = await jumping!.propose(request);
        expect({ name: b.name, arguments: b.arguments }, item.instruction).toEqual({
          name: a.name,
          arguments: a.arguments,
        });
        expect(b.usage?.outputTokens).toBe(a.usage?.outputTokens);
        // The same tokens' probabilities, read at the same positions from the same arithmetic.
        expect(b.confidence).toBe(a.confidence);
        if (b.name === item.finalCall.name) right++;
        const d = await apart!.propose(request);
        expect({ name: d.name, arguments: d.arguments, confidence: d.confidence }).toEqual({
          name: b.name,
          arguments: b.arguments,
          confidence: b.confidence,
        });
        const c = await whole!.propose(request);
        expect({ name: c.name, arguments: c.arguments, confidence: c.confidence }, item.instruction).toEqual({
          name: a.name,
          arguments: a.arguments,
          confidence: a.confidence,
        });
      }
      // The model picks the labelled tool on most of these (what the comparison is about is the same calls).
      expect(right).toBeGreaterThanOrEqual(ITEMS / 2);
      const [off, on, all, ownBatch] = infos;
      // This model writes the choice with the colon (`":"`): no opening goes into the prompt's batch.
      for (const i of [...off!, ...on!, ...ownBatch!]) expect(i.opening).toBe(0);
      expect(ownBatch!.map((i) => i.batches)).toEqual(on!.map((i) => i.batches));
      // The closing brackets after the last value came from no decode step where the model wrote them apart.
      let shorter = 0;
      for (let k = 0; k < ITEMS; k++) {
        const [cut, full] = [off![k]!.pieces.join(""), all![k]!.pieces.join("")];
        expect(full.startsWith(cut), full).toBe(true);
        expect(full.slice(cut.length), full).toMatch(/^[\s}\]]*$/);
        if (cut.length < full.length) shorter++;
      }
      expect(shorter).toBeGreaterThanOrEqual(1);
      for (let k = 0; k < ITEMS; k++) {
        expect(off![k]!.forced).toBe(0);
        // Keys, quotes and the rest of each tool name came in drafted runs, not steps of their own.
        expect(on![k]!.forced).toBeGreaterThanOrEqual(5);
        expect(on![k]!.batches).toBeLessThan(off![k]!.batches);
      }
      // From the second answer on, drafts come from the answer before (its structure) and the prompt (copied
      // values): nearly all are kept, and the answers take well under two thirds of the batches.
      const sum = (xs: LocalDecodeInfo[], f: (i: LocalDecodeInfo) => number) =>
        xs.slice(1).reduce((n, i) => n + f(i), 0);
      expect(sum(on!, (i) => i.forced)).toBeGreaterThanOrEqual(0.8 * sum(on!, (i) => i.drafted));
      expect(sum(on!, (i) => i.batches)).toBeLessThan((2 / 3) * sum(off!, (i) => i.batches));
    },
    30 * 60_000,
  );
});

const model15 = findRealModel("qwen2.5-coder-1.5b-instruct");
const ITEMS_15 = 4;

describe.skipIf(!model15)(
  "the answer's opening in the prompt's batch on Qwen2.5-Coder-1.5B-Instruct (real weights)",
  () => {
    const infos: LocalDecodeInfo[][] = [[], [], []];
    const [stepwise, jumping, apart] = [false, true, true].map(
      (jumpForward, k) =>
        new LocalDelegate({
          model: model15!,
          threads: 1,
          jumpForward,
          _internal: { onDecode: (i) => infos[k]!.push(i), openingInPromptBatch: k !== 2 },
        }),
    );
    afterAll(() => Promise.all([stepwise!.close(), jumping!.close(), apart!.close()]));

    it(
      'takes `{"name":` in the prompt\'s batch from the second answer on, with and without jump-forward alike',
      async () => {
        for (const item of labelled.slice(0, ITEMS_15)) {
          const request = { instruction: item.instruction, facts: item.facts, tools: item.tools };
          const a = await stepwise!.propose(request);
          const b = await jumping!.propose(request);
          expect(
            { name: b.name, arguments: b.arguments, confidence: b.confidence },
            item.instruction,
          ).toEqual({
            name: a.name,
            arguments: a.arguments,
            confidence: a.confidence,
          });
          await apart!.propose(request);
        }
        const [off, on, ownBatch] = infos;
        // The first answer has no answer before it to take the opening from.
        expect([off![0]!.opening, on![0]!.opening]).toEqual([0, 0]);
        for (let k = 1; k < ITEMS_15; k++) {
          // `{"`, `name`, `":`: the model's own tokens, each its own pick at its position.
          expect(on![k]!.pieces.slice(0, 3).join("")).toBe('{"name":');
          expect(on![k]!.opening).toBe(3);
          expect(off![k]!.opening).toBe(3);
          expect(ownBatch![k]!.opening).toBe(0);
          // The batch of three the opening took on its own is the one saved.
          expect(on![k]!.batches).toBeLessThan(ownBatch![k]!.batches);
        }
      },
      30 * 60_000,
    );
  },
);
