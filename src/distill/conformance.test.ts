import { bfclGroundTruthCall, bfclQuestion, bfclToToolSpec } from "../eval/bfcl.js";
import { delegateBackendSuite } from "../../test/delegate-backend-suite.js";
import { loadBfclWithAnswers } from "../../test/bfcl-fixtures.js";
import { DistilledDelegate } from "./distilled-delegate.js";
import { trainDistilled } from "./train-distilled.js";
import type { TrainingExample } from "./training-examples.js";

// A model distilled from a quarter of the BFCL ground truths (simple and multiple; a quarter keeps training to
// seconds). The suite's sweep also offers tool sets the model never learned (the rest, irrelevance samples), which must end
// as backend_error, never a crash or a made-up call.
const examples: TrainingExample[] = loadBfclWithAnswers()
  .filter((_, i) => i % 4 === 0)
  .map(({ sample, answer }) => {
    const tools = sample.function.map(bfclToToolSpec);
    return {
      instruction: bfclQuestion(sample),
      facts: {},
      call: bfclGroundTruthCall(answer, tools),
      tools,
      source: "agent" as const,
    };
  });
const { model } = trainDistilled(examples, { node: "conformance", heldOutShare: 0.1 });

delegateBackendSuite({
  name: "DistilledDelegate",
  create: () => new DistilledDelegate({ model }),
  proposals: 200,
  concurrency: 2,
  // 60 of 200 measured: the sweep offers tool sets the model never learned, which must fail, never guess.
  maxBackendErrorShare: 0.35,
  sweepTimeoutMs: 60_000,
});
