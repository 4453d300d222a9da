import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Proposal, ProposeRequest, ToolCallDelegate } from "../delegate/protocol.js";
import { DelegateBackendError } from "../errors/delegate-backend-error.js";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import { bfclGroundTruthCall, bfclQuestion, type BfclAnswer } from "./bfcl.js";
import { loadBfclSuite } from "./bfcl-suite.js";
import { evaluateBackend } from "./evaluate-backend.js";

const BFCL_DIR = fileURLToPath(new URL("../../test/fixtures/bfcl", import.meta.url));
const suite = loadBfclSuite(BFCL_DIR, { limit: 6 });

/** A backend that answers every request with `answer(request)` (a scripted backend, no model). */
function backend(answer: (r: ProposeRequest) => Omit<Proposal, "backend" | "latencyMs">): ToolCallDelegate {
  return {
    name: "scripted",
    maxTools: 64,
    maxInputChars: 1_000_000,
    propose: async (r) => ({ ...answer(r), backend: "scripted", latencyMs: 1 }),
    close: async () => {},
  };
}

describe("evaluateBackend", () => {
  it("loads every category of the suite with its answers, and refuses a bad path or limit", () => {
    expect(suite.map((f) => f.category).sort()).toEqual([
      "irrelevance",
      "live_irrelevance",
      "multiple",
      "simple",
    ]);
    expect(suite.every((f) => f.samples.length === 6)).toBe(true);
    expect(suite.filter((f) => !f.category.includes("irrelevance")).every((f) => f.answers.size > 0)).toBe(
      true,
    );
    expect(() => loadBfclSuite("/nonexistent/bfcl")).toThrow(InvalidOptionError);
    expect(() => loadBfclSuite(BFCL_DIR, { limit: 0 })).toThrow(InvalidOptionError);
  });

  it("scores the ground truth as all correct, and declining as correct only for irrelevance", async () => {
    const truth = new Map<string, BfclAnswer>();
    for (const f of suite)
      for (const s of f.samples) {
        const a = f.answers.get(s.id);
        if (a) truth.set(bfclQuestion(s), a);
      }
    const oracle = await evaluateBackend(
      backend((r) => {
        const answer = truth.get(r.instruction);
        return answer
          ? { ...bfclGroundTruthCall(answer, r.tools), confidence: 1 }
          : { name: null, arguments: {}, confidence: 1 };
      }),
      suite,
    );
    expect(oracle.delegate).toBe("scripted");
    for (const r of oracle.results) {
      expect(r.cases).toBe(6);
      expect(r.accuracy).toBe(1);
    }

    const decliner = await evaluateBackend(
      backend(() => ({ name: null, arguments: {}, confidence: null })),
      suite,
    );
    const by = Object.fromEntries(decliner.results.map((r) => [r.category, r]));
    expect(by.irrelevance).toMatchObject({ correct: 6, declined: 6, accuracy: 1 });
    expect(by.live_irrelevance).toMatchObject({ correct: 6, declined: 6, accuracy: 1 });
    expect(by.simple).toMatchObject({ correct: 0, declined: 6, accuracy: 0 });
    expect(by.multiple).toMatchObject({ correct: 0, declined: 6, accuracy: 0 });
  });

  it("counts backend errors as wrong, skips what the backend cannot take, and throws anything else", async () => {
    const failing = backend(() => {
      throw new DelegateBackendError("scripted", "timed out", { code: "DELEGATE_TIMEOUT" });
    });
    const result = await evaluateBackend(failing, suite);
    for (const r of result.results) expect(r).toMatchObject({ correct: 0, backendErrors: r.cases });

    const small = { ...backend(() => ({ name: null, arguments: {}, confidence: null })), maxTools: 1 };
    const multiple = (await evaluateBackend(small, suite)).results.find((r) => r.category === "multiple")!;
    expect(multiple.skipped).toBe(6);
    expect(multiple.accuracy).toBeNull();

    const broken = backend(() => {
      throw new TypeError("a bug, not a backend failure");
    });
    await expect(evaluateBackend(broken, suite)).rejects.toThrow(TypeError);
  });
});
