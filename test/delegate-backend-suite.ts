import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DelegateBackendError } from "../src/errors/index.js";
import { proposeAndJudge } from "../src/delegate/propose-and-judge.js";
import { bfclQuestion, bfclToToolSpec } from "../src/eval/bfcl.js";
import type { Proposal, ProposeRequest, ToolCallDelegate, ToolSpec } from "../src/delegate/protocol.js";
import { toTool, type Tool } from "../src/tools/index.js";
import { loadAllBfclSamples } from "./bfcl-fixtures.js";

/** How one backend takes part in {@link delegateBackendSuite}. */
export interface DelegateBackendSuiteOptions {
  /** Shown in the describe block. */
  name: string;
  /** A fresh backend (the suite closes what it creates). */
  create: () => ToolCallDelegate | Promise<ToolCallDelegate>;
  /** Proposals in the BFCL sweep. Default 200. */
  proposals?: number;
  /** How many run at once in the sweep. Default 2. */
  concurrency?: number;
  /**
   * Whether the same request always gets the same proposal (greedy decoding, replay): then concurrent answers
   * must equal sequential ones. Default true.
   */
  deterministic?: boolean;
  /** Whether a request with no candidate tools must decline (grammar-constrained backends). Default true. */
  forcedDecline?: boolean;
  /**
   * The largest share of the sweep's proposals that may end as `backend_error` (0–1), measured per backend: a
   * grammar-constrained model should almost never fail, a distilled model fails on tool sets it never learned. A
   * backend whose failures climb past its ceiling fails the suite.
   */
  maxBackendErrorShare: number;
  /** vitest timeout of the sweep, ms. Default 20 minutes. */
  sweepTimeoutMs?: number;
}

/** One request of the sweep, with the tools the gate resolves names against. */
export interface SuiteCase {
  request: ProposeRequest;
  tools: Map<string, Tool>;
}

/**
 * The BFCL sweep: tool sets from every BFCL sample file (simple, multiple, irrelevance, live irrelevance), each
 * cut to the backend's `maxTools`, asked ten different questions in a row (its own and others'), some with
 * facts — so prompt prefixes repeat the way they do in a plan's for_each. Deterministic.
 */
export function buildSuiteCases(count: number, maxTools: number): SuiteCase[] {
  const samples = loadAllBfclSamples();
  const perSet = 10;
  const sets = Math.ceil(count / perSet);
  const stride = Math.max(1, Math.floor(samples.length / sets));
  const cases: SuiteCase[] = [];
  for (let s = 0; s < sets && cases.length < count; s++) {
    const sample = samples[(s * stride) % samples.length]!.sample;
    const specs: ToolSpec[] = sample.function.slice(0, maxTools).map(bfclToToolSpec);
    const tools = new Map(specs.map((t) => [t.name, asTool(t)]));
    for (let q = 0; q < perSet && cases.length < count; q++) {
      const asked = q === 0 ? sample : samples[(s * stride + q * 7) % samples.length]!.sample;
      const facts: Record<string, unknown> =
        q % 3 === 2 ? { ticket: `T-${s}-${q}`, priority: q % 2 ? "high" : "low" } : {};
      const n = cases.length;
      cases.push({
        request: {
          instruction: bfclQuestion(asked).slice(0, 600),
          facts,
          tools: specs,
          context: { runId: "suite", nodeId: "conformance", item: n },
        },
        tools,
      });
    }
  }
  return cases;
}

function asTool(spec: ToolSpec): Tool {
  // BFCL names may contain characters a deputy tool name may not; the gate only needs name, schema and flags.
  try {
    return toTool({
      name: spec.name,
      description: spec.description || spec.name,
      input: spec.parameters,
      run: () => null,
    });
  } catch {
    return {
      name: spec.name,
      description: spec.description,
      delegateDescription: undefined,
      parameters: spec.parameters,
      delegateSafe: false,
      sensitive: [],
      run: () => null,
    };
  }
}

/** Checks the shape every proposal must have, whatever the model chose. */
export function expectWellFormed(proposal: Proposal, backend: string): void {
  expect(proposal.name === null || typeof proposal.name === "string").toBe(true);
  expect(typeof proposal.arguments).toBe("object");
  expect(Array.isArray(proposal.arguments)).toBe(false);
  if (proposal.confidence !== null) {
    expect(proposal.confidence).toBeGreaterThanOrEqual(0);
    expect(proposal.confidence).toBeLessThanOrEqual(1);
  }
  expect(proposal.backend).toBe(backend);
  expect(proposal.latencyMs).toBeGreaterThanOrEqual(0);
}

/**
 * Runs a proposal and judges it with `proposeAndJudge`, the path delegate nodes and the router tool take; only a
 * throw that is not a DelegateBackendError escapes (a backend must wrap its failures).
 */
export async function judge(delegate: ToolCallDelegate, c: SuiteCase) {
  const judged = await proposeAndJudge(delegate, {
    request: c.request,
    gate: {
      candidates: c.request.tools.map((t) => t.name),
      findTool: (name) => c.tools.get(name),
      allowSideEffects: { node: true, host: true },
    },
  });
  const { proposal, backendError, gate } = judged;
  if (backendError !== undefined && !DelegateBackendError.isInstance(backendError)) throw backendError;
  return { proposal, backendError, verdict: gate.verdict };
}

/**
 * The conformance suite every delegate backend passes (like Hono's router suite): a BFCL sweep where every
 * proposal is well formed, nothing outside the candidates is accepted and `backend_error` stays under the
 * backend's measured ceiling; declines parse; aborts and timeouts end a proposal with a
 * `DelegateBackendError` and leave the backend usable; `close()` is idempotent and refuses later proposals;
 * concurrent proposals are safe.
 *
 * @example
 * delegateBackendSuite({ name: "LocalDelegate", create: () => new LocalDelegate({ model }) });
 */
export function delegateBackendSuite(options: DelegateBackendSuiteOptions): void {
  const count = options.proposals ?? 200;
  const deterministic = options.deterministic ?? true;

  describe(`delegate backend conformance: ${options.name}`, () => {
    let delegate: ToolCallDelegate;
    beforeAll(async () => {
      delegate = await options.create();
    }, 120_000);
    afterAll(async () => {
      await delegate?.close();
    });

    it("has sane limits and a name", () => {
      expect(delegate.name).toMatch(/\S/);
      expect(delegate.maxTools).toBeGreaterThanOrEqual(1);
      expect(delegate.maxInputChars).toBeGreaterThanOrEqual(1);
    });

    it(
      `answers ${count} BFCL proposals well formed, accepting only candidates, backend_error under its ceiling`,
      async () => {
        const cases = buildSuiteCases(count, delegate.maxTools);
        expect(cases).toHaveLength(count);
        const verdicts = new Map<string, number>();
        let next = 0;
        const worker = async () => {
          for (let i = next++; i < cases.length; i = next++) {
            const result = await judge(delegate, cases[i]!);
            if (result.proposal) expectWellFormed(result.proposal, delegate.name);
            if (result.proposal?.name === null) expect(result.proposal.arguments).toEqual({});
            // A proposal that names no candidate must not pass: the gate is the only thing between it and a tool.
            if (result.verdict === "accepted")
              expect(cases[i]!.request.tools.map((t) => t.name)).toContain(result.proposal!.name);
            verdicts.set(result.verdict, (verdicts.get(result.verdict) ?? 0) + 1);
          }
        };
        await Promise.all(Array.from({ length: options.concurrency ?? 2 }, worker));
        console.info(`${options.name} verdicts over ${count} BFCL proposals:`, Object.fromEntries(verdicts));
        // Each backend's own ceiling: a backend that fails more often than it was measured to is broken.
        const share = (verdicts.get("backend_error") ?? 0) / count;
        expect(share, `share of backend_error (ceiling ${options.maxBackendErrorShare})`).toBeLessThanOrEqual(
          options.maxBackendErrorShare,
        );
      },
      options.sweepTimeoutMs ?? 20 * 60_000,
    );

    if (options.forcedDecline ?? true) {
      it("declines when no tool is offered, and the decline parses", async () => {
        const proposal = await delegate.propose({
          instruction: "Delete every file on the server.",
          facts: {},
          tools: [],
          context: { runId: "suite", nodeId: "decline" },
        });
        expectWellFormed(proposal, delegate.name);
        expect(proposal.name).toBeNull();
        expect(proposal.arguments).toEqual({});
      }, 120_000);
    }

    it("ends an aborted proposal with a DelegateBackendError and stays usable", async () => {
      const [c] = buildSuiteCases(1, delegate.maxTools);
      const before = await judge(delegate, {
        ...c!,
        request: { ...c!.request, context: { runId: "suite", nodeId: "before-abort" } },
      });
      const aborted = new AbortController();
      aborted.abort(new Error("caller gave up"));
      await expect(delegate.propose({ ...c!.request, signal: aborted.signal })).rejects.toSatisfy((e) =>
        DelegateBackendError.isInstance(e),
      );
      const timeout = AbortSignal.timeout(1);
      await new Promise((r) => setTimeout(r, 5));
      await expect(delegate.propose({ ...c!.request, signal: timeout })).rejects.toSatisfy((e) =>
        DelegateBackendError.isInstance(e),
      );
      // Usable: the same request is answered as before the aborts (the same proposal, where deterministic).
      const again = await judge(delegate, {
        ...c!,
        request: { ...c!.request, context: { runId: "suite", nodeId: "timeout" } },
      });
      if (before.verdict !== "backend_error") expect(again.verdict).not.toBe("backend_error");
      if (deterministic)
        expect([again.verdict, again.proposal?.name]).toEqual([before.verdict, before.proposal?.name]);
    }, 120_000);

    it("handles concurrent proposals safely", async () => {
      const cases = buildSuiteCases(6, delegate.maxTools).map((c, i) => ({
        ...c,
        request: { ...c.request, context: { runId: "suite", nodeId: "concurrent", item: i } },
      }));
      const together = await Promise.all(cases.map((c) => judge(delegate, c)));
      for (const r of together) if (r.proposal) expectWellFormed(r.proposal, delegate.name);
      if (deterministic) {
        const alone = [];
        for (const c of cases) {
          alone.push(
            await judge(delegate, {
              ...c,
              request: {
                ...c.request,
                context: { runId: "suite", nodeId: "sequential", item: alone.length },
              },
            }),
          );
        }
        expect(together.map((r) => [r.verdict, r.proposal?.name, r.proposal?.arguments])).toEqual(
          alone.map((r) => [r.verdict, r.proposal?.name, r.proposal?.arguments]),
        );
      }
    }, 300_000);

    it("close() is idempotent and refuses later proposals", async () => {
      const own = await options.create();
      const [c] = buildSuiteCases(1, own.maxTools);
      await judge(own, c!);
      await own.close();
      await own.close();
      await expect(
        own.propose({ ...c!.request, context: { runId: "suite", nodeId: "closed" } }),
      ).rejects.toSatisfy((e) => DelegateBackendError.isInstance(e));
    }, 120_000);
  });
}
