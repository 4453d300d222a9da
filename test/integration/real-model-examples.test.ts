// In-context examples on real weights (issue 23, item 4): Qwen2.5-Coder-0.5B-Instruct, greedy, one thread, a
// fixed seed. On an alert of the development set (`holdout2.jsonl`) where the team's convention differs from
// the model's habit — a staging alert the team ignores and the model files a ticket for — the team's own
// decisions (the training set), the most similar shown as worked examples, change the call to the team's.
// Measured over the whole set in docs/quality.md ("In-context examples").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LocalDelegate } from "../../src/delegate/backends/local-delegate.js";
import { alertTriageExamples } from "../../src/distill/alert-triage.fixture.js";
import { encoderModelForTests } from "../../src/distill/encoder-model-path.js";
import { GgufTextEncoder } from "../../src/distill/gguf-text-encoder.js";
import { withExamples } from "../../src/distill/in-context-examples.js";
import { exactMatch } from "../../src/distill/training-examples.js";
import { findRealModel } from "../../src/testing/index.js";

const model = findRealModel("qwen2.5-coder-0.5b-instruct");
if (!model) throw new Error("Qwen2.5-Coder-0.5B-Instruct not cached: run `bash scripts/models.sh` first.");

const train = alertTriageExamples("train");
/** holdout2 #16: the team ignores it (`self-resolved`-style convention); the model alone files a ticket. */
const alert = alertTriageExamples("holdout2")[16]!;

describe("in-context examples on Qwen2.5-Coder-0.5B-Instruct (real weights)", () => {
  const local = new LocalDelegate({ model, threads: 1, seed: 1, temperature: 0 });
  let encoder: GgufTextEncoder;
  beforeAll(async () => {
    encoder = await GgufTextEncoder.open(encoderModelForTests());
  });
  afterAll(async () => {
    await local.close();
    await encoder.close();
  });

  it(
    "the team's decisions shown as examples change the call to the team's convention",
    async () => {
      const request = {
        instruction: alert.instruction,
        facts: alert.facts,
        tools: alert.tools,
        context: { runId: "test", nodeId: "triage_items", item: 16 },
      };
      const alone = await local.propose(request);
      expect(alone.name).not.toBe(alert.call.name);

      const withTeam = await withExamples(local, { source: { examples: train }, encoder, k: 4 }).propose(
        request,
      );
      expect(withTeam.examples!.length).toBeGreaterThan(0);
      expect(withTeam.name).toBe(alert.call.name);
      expect(exactMatch(withTeam, alert.call)).toBe(true);
    },
    10 * 60_000,
  );
});
