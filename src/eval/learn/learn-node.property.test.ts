/**
 * One turn of the learning loop on hostile or tiny decision sets — none, a single one, one tool only,
 * contradictory labels (the same input decided with different calls), calls naming tools not among the candidates,
 * all wrong, empty facts, huge strings — never throws, never promotes a challenger below the target precision or
 * whose Wilson lower bound is below the champion's (nor one deciding no more than a champion at the target), and
 * leaves the model files as they were, byte for byte, when it keeps the champion.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { saveModelFile } from "../../distill/model-file.js";
import { trainDistilled } from "../../distill/train-distilled.js";
import type { TrainingExample } from "../../distill/training-examples.js";
import { learnNode } from "./learn-node.js";
import { LEARN_NODE, LEARN_TOOLS, learnExamples } from "./learn.fixture.js";
import { applyLearnResult, nodeFiles, readLearnHistory } from "./node-files.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-learn-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const champion = trainDistilled(learnExamples(150, 3, 50_000), {
  node: LEARN_NODE,
  targetPrecision: 0.97,
}).model;

const huge = "x".repeat(30_000);
const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.constant(huge),
  fc.constant(""),
  fc.constant("\u0000\u202e"),
);
const call = fc.oneof(
  fc.constant({ name: null, arguments: {} }),
  // a tool that is not among the candidates
  fc.record({
    name: fc.constantFrom("escalate", "delete_everything", ""),
    arguments: fc.record({ service: text }),
  }),
  fc.record({ name: fc.constant("page"), arguments: fc.record({ service: text }) }),
  fc.record({
    name: fc.constant("ticket"),
    arguments: fc.record({ service: text, priority: fc.constantFrom("P2", "P3", "P9") }),
  }),
);
const hostile: fc.Arbitrary<TrainingExample> = fc.record({
  instruction: text,
  facts: fc.oneof(fc.constant({}), fc.record({ alert_id: fc.string({ maxLength: 8 }) })),
  tools: fc.constantFrom(LEARN_TOOLS, LEARN_TOOLS.slice(0, 1)),
  call,
  source: fc.constant("person" as const),
});
/** The fixture's rule with every label swapped: page ↔ ticket. */
const allWrong = (n: number, seed: number) =>
  learnExamples(n, seed).map((e) => ({
    ...e,
    call:
      e.call.name === "page"
        ? { name: "ticket", arguments: { service: e.call.arguments.service, priority: "P3" } }
        : { name: "page", arguments: { service: e.call.arguments.service } },
  }));
/** Good decisions with some of their inputs decided again, each time with another (hostile) call. */
const conflicting = fc
  .tuple(fc.integer({ min: 1, max: 1000 }), fc.array(fc.tuple(fc.nat({ max: 29 }), call), { maxLength: 15 }))
  .map(([s, again]) => {
    const good = learnExamples(30, s);
    return [...good, ...again.map(([i, c]) => ({ ...good[i]!, call: c }))];
  });
const decisions = fc.oneof(
  fc.constant([] as TrainingExample[]),
  hostile.map((d) => [d]),
  fc.integer({ min: 1, max: 1000 }).map((s) => learnExamples(1, s)),
  fc.array(hostile, { maxLength: 12 }),
  // one input decided over and over, with conflicting calls
  fc
    .tuple(hostile, fc.array(call, { minLength: 1, maxLength: 6 }))
    .map(([d, calls]) => calls.map((c) => ({ ...d, call: c }))),
  conflicting,
  fc.tuple(fc.nat({ max: 60 }), fc.integer({ min: 1, max: 1000 })).map(([n, s]) => allWrong(n, s)),
  // contradictory: the same alerts twice, the second time with the other call
  fc.integer({ min: 1, max: 1000 }).map((s) => [...learnExamples(20, s), ...allWrong(20, s)]),
  fc
    .integer({ min: 1, max: 1000 })
    .map((s) => learnExamples(6, s).map((e) => ({ ...e, tools: LEARN_TOOLS.slice(0, 1) }))),
);

let run = 0;
describe("learnNode on hostile decisions", () => {
  it(
    "never throws, and never promotes a worse challenger; kept files are unchanged",
    { timeout: 600_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(
          decisions,
          fc.integer({ min: 1, max: 5 }),
          fc.boolean(),
          async (set, seed, hasChampion) => {
            const files = nodeFiles(join(dir, `run-${run++}`, "node.model.json"));
            if (hasChampion) saveModelFile(files.model, champion);
            const before = hasChampion ? readFileSync(files.model) : undefined;
            const result = await learnNode({
              node: LEARN_NODE,
              decisions: set,
              ...(hasChampion ? { champion: { model: champion } } : {}),
              seed,
              curvePoints: 2,
            });
            const entry = applyLearnResult(result, files, new Date("2026-12-03T08:00:00Z"));
            expect(readLearnHistory(files.history)).toEqual([entry]);
            expect(result.verdict.reason.length).toBeGreaterThan(0);
            if (!result.verdict.promote) {
              if (before) expect(readFileSync(files.model).equals(before)).toBe(true);
              else expect(existsSync(files.model)).toBe(false);
              expect(existsSync(files.previous)).toBe(false);
              return;
            }
            const challenger = result.challenger!.measured;
            expect(challenger.decided).toBeGreaterThan(0);
            expect(challenger.correct / challenger.decided).toBeGreaterThanOrEqual(result.targetPrecision);
            if (!before) return;
            const held = result.champion!.measured;
            if (held.wilsonLower !== null)
              expect(challenger.wilsonLower!).toBeGreaterThanOrEqual(held.wilsonLower);
            // a champion below the target precision decides no share the team can leave to it
            if (held.precision !== null && held.precision >= result.targetPrecision)
              expect(challenger.share).toBeGreaterThan(held.share);
            expect(readFileSync(files.previous).equals(before)).toBe(true);
          },
        ),
        { numRuns: 60 },
      );
    },
  );
});
