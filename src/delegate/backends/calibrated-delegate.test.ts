import { describe, expect, it } from "vitest";
import type { DelegateCalibrationFile } from "../../confidence/delegate-calibration.js";
import type { Proposal, ProposeRequest } from "../protocol.js";
import { CalibratedDelegate } from "./calibrated-delegate.js";

const tool = (name: string) => ({ name, description: name, parameters: { type: "object", properties: {} } });

describe("CalibratedDelegate", () => {
  it("a calibration fitted with context scores a made-up value below a copied one", async () => {
    const file: DelegateCalibrationFile = {
      format: "deputy-delegate-calibration",
      version: 1,
      model: "m.gguf",
      confidenceMethod: "answer",
      calibrator: {
        method: "logistic",
        inputs: ["choiceLogit", "meanTokenLogit", "logTools", "verbatimShare"],
        mean: [0, 0, 0, 0.5],
        scale: [1, 1, 1, 0.5],
        weights: [1, 0, 0, 2],
        bias: 0,
      },
      fittedOn: 100,
      targetPrecision: 0.95,
      recommendedMinConfidence: 0.9,
      crossValidated: { folds: 5, auroc: 0.9, ece: 0.1, coverage: 0.1, precision: 1 },
    };
    const inner = {
      name: "fake",
      maxTools: 5,
      maxInputChars: 1000,
      propose: (r: ProposeRequest): Promise<Proposal> =>
        Promise.resolve({
          name: "a",
          arguments: { city: r.instruction.includes("Oslo") ? "Oslo" : "Paris" },
          confidence: 0.9,
          meanTokenProbability: 0.9,
          backend: "fake",
          latencyMs: 1,
        }),
      close: () => Promise.resolve(),
    };
    const delegate = new CalibratedDelegate(inner, file);
    const copied = await delegate.propose({ instruction: "Weather in Oslo", facts: {}, tools: [tool("a")] });
    const madeUp = await delegate.propose({ instruction: "Weather here", facts: {}, tools: [tool("a")] });
    expect(copied.confidence!).toBeGreaterThan(madeUp.confidence!);
  });
});
