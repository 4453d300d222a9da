import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { defineNodeType } from "../src/index.js";
import { renderValue } from "../src/plan/index.js";

/**
 * The example node type of `docs/architecture.md` ("Node types"): a `wait` node pauses for `seconds` (cut short
 * by the run's abort), then stores its `value` (templated, so it may pass an artifact on) or what it waited.
 *
 * @example
 * { "id": "cool_down", "type": "wait", "seconds": 2, "value": "{artifacts.batch}", "store_as": "batch_later",
 *   "depends_on": ["fetch"] }
 */
export const waitNodeType = defineNodeType({
  name: "wait",
  fields: {
    seconds: z.number().min(0).max(60),
    value: z.unknown().optional(),
  },
  templated: (node) => [["value", node.value]],
  // A wait as long as the node's timeout would always time out: say so before the run.
  validate: (node) =>
    node.timeout !== undefined && node.seconds >= node.timeout
      ? [
          {
            code: "wait_exceeds_timeout",
            message: `waits ${node.seconds} s, as long as or longer than its timeout (${node.timeout} s)`,
            nodeId: node.id,
            path: "seconds",
            severity: "error",
          },
        ]
      : [],
  executor: {
    async execute(node, unit) {
      try {
        await sleep(node.seconds * 1000, undefined, { signal: unit.signal });
      } catch {
        return { status: "error", error: { code: "ABORTED", message: "The wait was aborted." } };
      }
      const value = node.value === undefined ? { waited: node.seconds } : renderValue(node.value, unit.scope);
      return { status: "ok", value, details: { waitedMs: node.seconds * 1000 } };
    },
  },
  details: z.strictObject({ waitedMs: z.number() }),
  // What a model may write: a repair may change how long it waits and what it passes on (the schema still caps
  // `seconds` at 60); everything else stays as it ran. It names no tool, so an authored plan's wait needs no
  // person's approval.
  modelWrites: { free: ["seconds", "value", "description"] },
  // What the console shows: a wait judges nothing, so no threshold is drawn; its length is in its record.
  consoleView: () => ({}),
});
