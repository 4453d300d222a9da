import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as errors from "./index.js";

const { DeputyError } = errors;
const classes = Object.values(errors).filter(
  (v): v is typeof DeputyError => typeof v === "function" && "isInstance" in v,
);

/** One instance of every error class (each constructor's own shape). */
function samples(): InstanceType<typeof DeputyError>[] {
  return [
    new errors.AgentDefinitionError("bad", { agent: "a" }),
    new errors.BudgetExceededError({
      limit: "max_calls",
      allowed: 1,
      used: 1,
      scope: "agent",
      agent: "a",
      tool: "t",
    }),
    new errors.DelegateBackendError("b", "down", { code: "DELEGATE_CONNECTION" }),
    new errors.DistilledModelError("m.json", ["bad"]),
    new errors.ExpressionError("CEL_INVALID", "bad"),
    new errors.InputFileError("PLAN_NOT_FOUND", "gone"),
    new errors.InvalidOptionError("x", "a number", "y"),
    new errors.InvalidResultError("t", { missing: [], issues: [], content: "", message: "bad" }),
    new errors.LlamaServerError("LLAMA_SERVER_EXITED", "gone"),
    new errors.NodeError("ITEM_FAILED", "failed"),
    new errors.PlanAuthoringError("MODEL_FAILED", "down"),
    new errors.PlanValidationError([{ code: "cycle", message: "a → a", severity: "error" }]),
    new errors.RepairError("ROUNDS_USED_UP", "no rounds left", { runId: "r" }),
    new errors.RunError("RUN_NOT_FOUND", "none"),
    new errors.RunLeasedError("r", {
      owner: "o",
      heartbeatAt: "2026-01-01T00:00:00Z",
      expiresAt: "2026-01-01T00:00:10Z",
    }),
    new errors.ModelFetchError("m", "not cached"),
    new errors.ToolError("TOOL_NOT_FOUND", "t", "none"),
  ];
}

describe("deputy/errors", () => {
  it("exports one sample per error class, each recognised by its own isInstance and the base's only", () => {
    const all = samples();
    expect(new Set(all.map((e) => e.constructor)).size).toBe(classes.length - 1); // all but the base
    for (const error of all) {
      expect(DeputyError.isInstance(error)).toBe(true);
      expect(error.name).toBe(error.constructor.name);
      expect(typeof error.code).toBe("string");
      for (const cls of classes) {
        if (cls === DeputyError) continue;
        expect(cls.isInstance(error)).toBe(error instanceof cls);
      }
    }
  });

  it("isInstance works across duplicate copies of the package (a structural copy of the error)", () => {
    for (const error of samples()) {
      // A copy from another module instance has another prototype but the same global symbols.
      const copy: Record<PropertyKey, unknown> = Object.create(Error.prototype);
      for (const key of Reflect.ownKeys(error)) {
        copy[key] = (error as unknown as Record<PropertyKey, unknown>)[key];
      }
      expect(copy instanceof error.constructor).toBe(false);
      const own = classes.find((c) => c !== DeputyError && error instanceof c)!;
      expect(own.isInstance(copy)).toBe(true);
      expect(DeputyError.isInstance(copy)).toBe(true);
    }
  });

  it("never recognises anything else, and serializes any thrown value to plain data without throwing", () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        for (const cls of classes) expect(cls.isInstance(value)).toBe(false);
        const data = errors.serializeError(value);
        expect(typeof data.code).toBe("string");
        expect(typeof data.message).toBe("string");
      }),
    );
  });
});
