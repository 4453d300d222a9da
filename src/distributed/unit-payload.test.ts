import { describe, expect, it } from "vitest";
import type { BaseNode } from "../plan/plan-schema.js";
import type { WorkUnit } from "../plan/node-executor.js";
import { artifactsReadBy, toPayload, unitKey } from "./unit-payload.js";

const node = (extra: Record<string, unknown>) =>
  ({ id: "n", type: "tool", depends_on: [], store_as: "out_{index}", ...extra }) as unknown as BaseNode;

function unit(artifacts: Record<string, unknown>, itemIndex?: number): WorkUnit {
  return {
    runId: "r1",
    nodeId: "n",
    ...(itemIndex === undefined ? {} : { itemIndex }),
    scope: { artifacts, alias: "item", item: { id: 7 }, index: itemIndex ?? 0 },
    signal: new AbortController().signal,
    statuses: { a: "ok" },
    errors: {},
    host: {} as WorkUnit["host"],
  };
}

describe("unit payloads", () => {
  it("carries only the artifacts the node's templates and guards read", () => {
    const n = node({
      tool: "t",
      args: { user: "{artifacts.users.0}", note: "see {artifacts.notes}" },
      accept_when: "ctx.artifacts.limits.max > 1",
      for_each: { source: "{artifacts.big_list}" },
    });
    expect(new Set(artifactsReadBy(n) as string[])).toEqual(new Set(["users", "notes", "limits"]));
    const p = toPayload(
      n,
      unit({ users: [1], notes: "x", limits: { max: 2 }, big_list: [1, 2, 3], other: 1 }, 3),
    );
    expect(p.artifacts).toEqual({ users: [1], notes: "x", limits: { max: 2 } });
    expect(p).toMatchObject({ key: "r1/n/3", itemIndex: 3, item: { id: 7 }, alias: "item", index: 3 });
    // Plain JSON: what a job carries.
    expect(JSON.parse(JSON.stringify(p))).toEqual(p);
  });

  it("sends every artifact when the node names `artifacts` in a way it cannot follow", () => {
    const n = node({ tool: "t", args: { all: "{artifacts}" } });
    expect(artifactsReadBy(n)).toBe("all");
    expect(toPayload(n, unit({ a: 1, b: 2 })).artifacts).toEqual({ a: 1, b: 2 });
  });

  it("keys units like the idempotency key tools see", () => {
    expect(unitKey({ runId: "r", nodeId: "n" })).toBe("r/n");
    expect(unitKey({ runId: "r", nodeId: "n", itemIndex: 0 })).toBe("r/n/0");
  });
});
