import { describe, expect, it } from "vitest";
import { DelegateBackendError } from "../errors/delegate-backend-error.js";
import type { ProposeRequest } from "./protocol.js";
import { ScriptedDelegate } from "./scripted-delegate.js";

const ask = (nodeId: string, item?: number, signal?: AbortSignal): ProposeRequest => ({
  instruction: "",
  facts: {},
  tools: [],
  context: { runId: "r", nodeId, ...(item === undefined ? {} : { item }) },
  ...(signal ? { signal } : {}),
});

describe("ScriptedDelegate", () => {
  it("replays per node and item in order, then node-wide entries, then fails", async () => {
    const d = new ScriptedDelegate({
      entries: [
        { node: "n", item: 1, proposal: { name: "a", arguments: { x: 1 }, confidence: 0.5 } },
        { node: "n", proposal: { name: "any" } },
        { node: "n", item: 1, error: "second try fails" },
        { node: "m", proposal: { name: null } },
      ],
    });
    expect(await d.propose(ask("n", 1))).toEqual({
      name: "a",
      arguments: { x: 1 },
      confidence: 0.5,
      backend: "scripted",
      latencyMs: 0,
    });
    await expect(d.propose(ask("n", 1))).rejects.toThrow(
      new DelegateBackendError("scripted", "second try fails"),
    );
    expect(await d.propose(ask("n", 1))).toMatchObject({ name: "any", arguments: {}, confidence: null });
    await expect(d.propose(ask("n", 1))).rejects.toThrow('no scripted proposal left for node "n" item 1');
    expect(await d.propose(ask("m"))).toMatchObject({ name: null });
    expect(d.remaining).toBe(0);
    expect(d.requests).toHaveLength(5);
  });

  it("needs the request context, honours an aborted signal and rejects malformed entries", async () => {
    const d = new ScriptedDelegate({ entries: [{ node: "n", proposal: { name: null } }] });
    await expect(d.propose({ instruction: "", facts: {}, tools: [] })).rejects.toThrow(/context/);
    await expect(d.propose(ask("n", undefined, AbortSignal.abort()))).rejects.toMatchObject({
      code: "DELEGATE_ABORTED",
    });
    expect(d.remaining).toBe(1);
    expect(() => new ScriptedDelegate({ entries: [{ node: 3 } as never] })).toThrow(/entries\[0\]/);
    expect(() => new ScriptedDelegate({ entries: [{ node: "n", item: 1.5, error: "x" }] })).toThrow(
      /entries\[0\]\.item/,
    );
    expect(() => new ScriptedDelegate({ entries: [{ node: "n", proposal: {} } as never] })).toThrow(/"name"/);
  });
});
