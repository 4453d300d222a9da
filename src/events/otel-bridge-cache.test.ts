import { describe, expect, it } from "vitest";
import { z } from "zod";
import { recordingTracer } from "../../test/recording-tracer.js";
import { runPlan } from "../compose/index.js";
import type { RunEvent } from "../plan/run-events.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { defineTool } from "../tools/define-tool.js";
import { enableOpenTelemetry } from "./otel-bridge.js";

describe("cached results in events and OpenTelemetry spans", () => {
  it("marks a cached node and each cached item (deputy.cached), and nothing else", async () => {
    let calls = 0;
    const lookup = defineTool({
      name: "lookup",
      description: "Looks up",
      input: z.object({ q: z.string() }),
      delegateSafe: true,
      run: ({ q }) => {
        calls++;
        return q;
      },
    });
    const plan = {
      name: "cached",
      nodes: [
        { id: "one", tool: "lookup", args: { q: "x" }, cache: { ttl: 60 }, store_as: "one" },
        {
          id: "each",
          tool: "lookup",
          args: { q: "{item}" },
          cache: { ttl: 60 },
          store_as: "e_{index}",
          for_each: { source: "{artifacts.qs}", max_concurrency: 1 },
        },
      ],
    };
    const store = new MemoryRunStore();
    const events: RunEvent[] = [];
    await runPlan(plan, { tools: [lookup], store, artifacts: { qs: ["y", "z"] } });
    expect(calls).toBe(3);
    const { tracer, spans } = recordingTracer();
    const disable = enableOpenTelemetry({ tracer });
    try {
      await runPlan(plan, {
        tools: [lookup],
        store,
        artifacts: { qs: ["y", "w"] },
        onEvent: (e) => events.push(e),
      });
    } finally {
      disable();
    }
    expect(calls).toBe(4);
    expect(events.find((e) => e.type === "node-end" && e.nodeId === "one")).toMatchObject({ cached: true });
    expect(events.filter((e) => e.type === "item-end").map((e) => e.cached ?? false)).toEqual([true, false]);
    const one = spans.find((s) => s.name === "node one")!;
    expect(one.attributes["deputy.cached"]).toBe(true);
    const each = spans.find((s) => s.name === "node each")!;
    expect(each.attributes["deputy.cached"]).toBeUndefined();
    expect(each.events.map((e) => e.attributes?.["deputy.cached"] ?? false)).toEqual([true, false]);
  });
});
