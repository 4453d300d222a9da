import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { retryWithDeadline } from "./retry.js";

const never = () => new Promise<never>(() => {});

describe("retryWithDeadline", () => {
  it("returns a synchronous or an asynchronous value of one attempt", async () => {
    const signal = new AbortController().signal;
    expect(await retryWithDeadline({ attempts: 1, signal }, () => 7)).toEqual({
      ok: true,
      value: 7,
      attempts: 1,
    });
    expect(await retryWithDeadline({ attempts: 1, signal }, async (n) => n + 1)).toEqual({
      ok: true,
      value: 2,
      attempts: 1,
    });
  });

  it("reports what a single attempt threw or rejected with, never rejecting itself", async () => {
    const signal = new AbortController().signal;
    const boom = new Error("boom");
    const failed = { ok: false, error: boom, attempts: 1, timedOut: false, aborted: false };
    expect(
      await retryWithDeadline({ attempts: 1, signal }, () => {
        throw boom;
      }),
    ).toEqual(failed);
    expect(await retryWithDeadline({ attempts: 1, signal }, () => Promise.reject(boom))).toEqual(failed);
  });

  it("does not start when already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    let calls = 0;
    const outcome = await retryWithDeadline({ attempts: 3, signal: controller.signal }, () => ++calls);
    expect(outcome).toMatchObject({ ok: false, aborted: true, attempts: 0 });
    expect(calls).toBe(0);
    expect(await retryWithDeadline({ attempts: 1, signal: controller.signal }, () => ++calls)).toMatchObject({
      ok: false,
      aborted: true,
      attempts: 0,
    });
    expect(calls).toBe(0);
  });

  it("abandons attempts that ignore the signal when it aborts, with one listener for all of them", async () => {
    const controller = new AbortController();
    let late = 0;
    const waiting = Array.from({ length: 100 }, () =>
      retryWithDeadline(
        { attempts: 1, signal: controller.signal },
        () =>
          // Rejects after the abort, as a tool that ignores its signal might: the rejection must stay handled.
          new Promise((_, reject) => setTimeout(() => reject(new Error(`late ${++late}`)), 20)),
      ),
    );
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    const reason = new Error("cancelled");
    controller.abort(reason);
    const outcomes = await Promise.all(waiting);
    expect(late).toBe(0);
    for (const o of outcomes)
      expect(o).toEqual({ ok: false, error: reason, attempts: 1, timedOut: false, aborted: true });
    await new Promise((r) => setTimeout(r, 40));
    expect(late).toBe(100);
  });

  it("retries with backoff until an attempt succeeds", async () => {
    const signal = new AbortController().signal;
    const seen: number[] = [];
    const outcome = await retryWithDeadline({ attempts: 4, backoffMs: 1, signal }, async (n) => {
      seen.push(n);
      if (n < 3) throw new Error(`fail ${n}`);
      return "done";
    });
    expect(outcome).toEqual({ ok: true, value: "done", attempts: 3 });
    expect(seen).toEqual([1, 2, 3]);
  });

  it("times out an attempt that never ends, and says so after the last attempt", async () => {
    const signal = new AbortController().signal;
    const signals: AbortSignal[] = [];
    const outcome = await retryWithDeadline({ attempts: 2, timeoutMs: 10, signal }, (_, attemptSignal) => {
      signals.push(attemptSignal);
      return never();
    });
    expect(outcome).toMatchObject({ ok: false, attempts: 2, timedOut: true, aborted: false });
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);
    expect(signal.aborted).toBe(false);
  });
});
