import { expect } from "vitest";
import { RunError } from "../../errors/run-error.js";
import type { DecisionFields } from "./check-decision.js";

/** The message of the `RESOLUTION_INVALID` that `fn` throws. */
export const message = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    expect(RunError.isInstance(error) && error.code === "RESOLUTION_INVALID").toBe(true);
    return (error as Error).message;
  }
  throw new RunError("RESOLUTION_INVALID", "expected a refusal");
};

/** Decisions that are not one of call, value or skip, with what the one check says about each. */
export const BAD: [DecisionFields, RegExp][] = [
  [{}, /^A decision gives exactly one of call, value or skip \(got 0\)\.$/],
  [{ skip: true, value: 1 }, /exactly one of call, value or skip \(got 2\)/],
  [{ call: { name: "t" }, value: null, skip: true }, /\(got 3\)/],
  [{ skip: false }, /\(got 0\)/],
  [{ call: "page" }, /call is \{"name": TOOL, "arguments": \{\.\.\.\}\} \(got "page"\)/],
  [{ call: [] }, /call is .* \(got an array\)/],
  [{ call: { name: "" } }, /"name" is a non-empty string \(got ""\)/],
  [{ call: { arguments: {} } }, /"name" is a non-empty string \(got nothing\)/],
  [{ call: { name: "t", arguments: [] } }, /call\.arguments is a JSON object \(got an array\)/],
  [{ call: { name: "t", args: {} } }, /only "name" and "arguments" \(got also args\)/],
];
