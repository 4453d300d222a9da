import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DelegateTrace, TraceSink } from "../src/traces/trace.js";

/** How one trace sink takes part in {@link traceSinkSuite}. */
export interface TraceSinkSuiteOptions {
  name: string;
  /** A fresh, empty sink. */
  create: () => TraceSink;
  /** What the sink kept, in order, once `close` (when it has one) resolved. */
  read: (sink: TraceSink) => DelegateTrace[];
  /** Whether the sink redacts secret-looking keys (file sinks do; the in-memory one keeps traces as given). */
  redacts: boolean;
}

/** A trace as the engine writes it: item `i` of node `n`, a declined hop. */
export function suiteTrace(i: number, over: Partial<DelegateTrace> = {}): DelegateTrace {
  return {
    runId: "run-1",
    nodeId: "n",
    item: i,
    instruction: `alert ${i}`,
    facts: { service: `svc-${i}` },
    tools: [{ name: "page", description: "Page on-call", parameters: { type: "object" } }],
    proposal: {
      name: "page",
      arguments: { service: `svc-${i}` },
      confidence: 0.5,
      backend: "b",
      latencyMs: 1,
    },
    verdict: "low_confidence",
    backend: "b",
    latencyMs: i,
    time: "2026-01-01T00:00:00.000Z",
    source: "delegate",
    ...over,
  };
}

async function settle(sink: TraceSink, writes: (void | Promise<void>)[]): Promise<void> {
  await Promise.all(writes);
  await sink.close?.();
}

/**
 * The conformance suite every trace sink passes: what is written is read back in write order with its fields,
 * concurrent writes lose nothing, redacting sinks never keep a secret, and no trace — whatever a model put into
 * it — makes `write` throw or reject into the run.
 */
export function traceSinkSuite(options: TraceSinkSuiteOptions): void {
  describe(`trace sink conformance: ${options.name}`, () => {
    it("reads back what was written, in write order, with its fields", async () => {
      const sink = options.create();
      const written = [
        suiteTrace(0),
        suiteTrace(1, { verdict: "accepted", finalCall: { name: "page", arguments: {} } }),
      ];
      await settle(
        sink,
        written.map((t) => sink.write(t)),
      );
      const read = options.read(sink);
      expect(read).toHaveLength(2);
      expect(read[0]).toMatchObject({
        runId: "run-1",
        nodeId: "n",
        item: 0,
        verdict: "low_confidence",
        source: "delegate",
      });
      expect(read[0]!.proposal).toMatchObject({
        name: "page",
        arguments: { service: "svc-0" },
        confidence: 0.5,
      });
      expect(read[1]).toMatchObject({
        item: 1,
        verdict: "accepted",
        finalCall: { name: "page", arguments: {} },
      });
    });

    it("keeps every one of many concurrent writes, in order", async () => {
      const sink = options.create();
      await settle(
        sink,
        Array.from({ length: 300 }, (_, i) => sink.write(suiteTrace(i))),
      );
      expect(options.read(sink).map((t) => t.item)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    });

    if (options.redacts) {
      it("never keeps a secret-looking value", async () => {
        const sink = options.create();
        const secret = "sk-live-0123456789abcdefXYZ";
        await settle(sink, [
          sink.write(
            suiteTrace(0, {
              facts: { api_key: secret, note: `token=${secret}` },
              proposal: {
                name: "page",
                arguments: { password: secret },
                confidence: null,
                backend: "b",
                latencyMs: 0,
              },
            }),
          ),
        ]);
        const kept = JSON.stringify(options.read(sink));
        expect(kept).not.toContain(secret);
        expect(options.read(sink)[0]!.nodeId).toBe("n");
      });
    }

    it("never throws or rejects into the run, whatever the model put into the trace", async () => {
      const hostile = fc.record({
        instruction: fc.string({ maxLength: 3000 }),
        facts: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 })),
        args: fc.dictionary(fc.string({ maxLength: 12 }), fc.anything({ maxDepth: 2 })),
        name: fc.option(fc.string({ maxLength: 40 })),
      });
      const sink = options.create();
      let writes = 0;
      await fc.assert(
        fc.asyncProperty(hostile, async (h) => {
          const trace = suiteTrace(writes++, {
            instruction: h.instruction,
            facts: h.facts as Record<string, unknown>,
            proposal: { name: h.name, arguments: h.args, confidence: null, backend: "b", latencyMs: 0 },
          });
          let result: void | Promise<void> = undefined;
          expect(() => (result = sink.write(trace))).not.toThrow();
          await expect(Promise.resolve(result)).resolves.toBeUndefined();
        }),
        { numRuns: 60 },
      );
      // Values JSON cannot hold: a cycle and a BigInt.
      const cyclic: Record<string, unknown> = { a: 1 };
      cyclic.self = cyclic;
      for (const facts of [cyclic, { big: 10n }]) {
        let result: void | Promise<void> = undefined;
        expect(() => (result = sink.write(suiteTrace(writes++, { facts })))).not.toThrow();
        await expect(Promise.resolve(result)).resolves.toBeUndefined();
      }
      await sink.close?.();
    });
  });
}
