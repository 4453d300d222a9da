import { serializeError, type SerializedError } from "../errors/deputy-error.js";
import { NodeError } from "../errors/node-error.js";
import { commit, executeUnit, makeUnit, storeKey, type EngineContext } from "./engine-context.js";
import type { PlanNode } from "./plan-schema.js";
import type { ItemCounts, ItemRecord, NodeRecord } from "./run-state.js";
import { applySelectPath, parseSelectPath } from "../runtime/select-path.js";
import { compileValue, renderString, type TemplateScope } from "../runtime/template.js";

/**
 * Fans a node out over a list: at most `max_concurrency` items in flight, each item committed (its record and
 * its artifact) before its slot is released, so a crash repeats at most the items that were in flight.
 */
export async function runForEach(
  ctx: EngineContext,
  node: PlanNode,
  base: TemplateScope,
): Promise<NodeRecord> {
  const fe = node.for_each!;
  const source = renderString(fe.source, base);
  const list = fe.select
    ? applySelectPath(source, parseSelectPath(fe.select), fe.source.slice(1, -1))
    : source;
  if (!Array.isArray(list)) {
    throw new NodeError(
      "FOR_EACH_NOT_A_LIST",
      `for_each needs a list; ${fe.source}${fe.select ? ` with select "${fe.select}"` : ""} is ${list === null ? "null" : typeof list}.`,
    );
  }
  if (list.length > fe.max_items) {
    throw new NodeError(
      "FOR_EACH_TOO_MANY",
      `for_each has ${list.length} items, more than max_items (${fe.max_items}); raise max_items or narrow the source.`,
    );
  }
  const previous = ctx.state.items[node.id] ?? {};
  const counts: ItemCounts = { total: list.length, ok: 0, error: 0, skipped: 0, escalated: 0, reused: 0 };
  const keys: (string | undefined)[] = new Array(list.length);
  const keyOf = compileValue(node.store_as);

  // `on_item_error: "fail"` stops the node at the first failure and aborts the items in flight; so does the run's
  // abort, forwarded once. One plain signal, not AbortSignal.any: every item reads `aborted` several times, and a
  // composite signal recomputes it from its sources on each read.
  const stop = new AbortController();
  const signal = stop.signal;
  const forward = () => stop.abort(ctx.signal.reason);
  if (ctx.signal.aborted) forward();
  else ctx.signal.addEventListener("abort", forward, { once: true });
  let firstFailure: { index: number; error: SerializedError } | undefined;
  let next = 0;
  let done = 0;

  const runItem = async (index: number): Promise<void> => {
    const scope: TemplateScope = { artifacts: base.artifacts, alias: fe.as, item: list[index], index };
    if (base.inputs) scope.inputs = base.inputs;
    const prev = previous[index];
    let key: string;
    try {
      key = storeKey(node, scope, keyOf);
    } catch (error) {
      return finish(index, { index, status: "error", error: serializeError(error) }, false, undefined);
    }
    if (prev?.status === "ok" || (fe.skip_existing && Object.hasOwn(ctx.state.artifacts, key))) {
      counts.reused++;
      counts.ok++;
      keys[index] = key;
      if (!prev)
        await commit(ctx, [
          { kind: "item", nodeId: node.id, item: { index, status: "ok", key, details: { reused: true } } },
        ]);
      return report(index, "ok");
    }
    if (prev?.status === "escalated" && prev.escalation && !prev.escalation.resolution) {
      counts.escalated++;
      return report(index, "escalated");
    }
    const unit = makeUnit(ctx, node, scope, signal, index);
    if (prev?.escalation) {
      unit.escalation = prev.escalation;
      if (prev.escalation.resolution) unit.resolution = prev.escalation.resolution;
    }
    const outcome = await executeUnit(ctx, node, unit);
    // A person's decision stays on the item once applied: `deputy distill --store` learns from it.
    const resolved = prev?.escalation?.resolution ? prev.escalation : undefined;
    let item: ItemRecord;
    switch (outcome.status) {
      case "ok":
        item = { index, status: "ok", key };
        break;
      case "skipped":
        item = { index, status: "skipped" };
        break;
      case "escalated":
        item = {
          index,
          status: "escalated",
          escalation: {
            ...outcome.escalation,
            nodeId: node.id,
            item: index,
            createdAt: ctx.now().toISOString(),
          },
        };
        break;
      case "error":
        item = {
          index,
          status: fe.on_item_error === "skip" ? "skipped" : "error",
          error: outcome.error,
        };
        break;
    }
    if (resolved && outcome.status !== "escalated") item.escalation = resolved;
    if (outcome.details) item.details = outcome.details;
    const written = finish(
      index,
      item,
      outcome.status === "ok",
      outcome.status === "ok" ? outcome.value : undefined,
    );
    if (written) await written;
  };

  /** Counts and commits an item; the promise (only when the run persists) settles once it is written. */
  const finish = (index: number, item: ItemRecord, hasValue: boolean, value: unknown) => {
    if (item.status === "ok") keys[index] = item.key;
    counts[item.status]++;
    if (item.status === "error" && fe.on_item_error === "fail" && !firstFailure) {
      firstFailure = { index, error: item.error! };
      stop.abort(new NodeError("ITEM_FAILED", `Item ${index} failed; on_item_error is "fail".`));
    }
    const written = commit(ctx, [
      hasValue ? { kind: "item", nodeId: node.id, item, value } : { kind: "item", nodeId: node.id, item },
    ]);
    if (!written) return report(index, item.status);
    return written.then(() => report(index, item.status));
  };

  const report = (index: number, status: string) => {
    done++;
    if (ctx.emit.active())
      ctx.emit({
        type: "item-end",
        runId: ctx.state.run.runId,
        nodeId: node.id,
        index,
        status,
        done,
        total: list.length,
      });
  };

  const worker = async () => {
    while (next < list.length && !signal.aborted && !ctx.stop.aborted) await runItem(next++);
  };
  await Promise.all(Array.from({ length: Math.min(fe.max_concurrency, list.length) }, worker));
  ctx.signal.removeEventListener("abort", forward);

  const storedKeys = keys.filter((k): k is string => k !== undefined);
  if (firstFailure) {
    return {
      status: "error",
      storedKeys,
      attempts: 1,
      items: counts,
      error: {
        code: "ITEM_FAILED",
        message: `Item ${firstFailure.index} failed: ${firstFailure.error.message}`,
        details: { item: firstFailure.index },
      },
    };
  }
  if (ctx.stop.aborted && done < list.length) {
    return {
      status: "error",
      storedKeys,
      attempts: 1,
      items: counts,
      error: { code: "INTERRUPTED", message: `Stopped after ${done} of ${list.length} items.` },
    };
  }
  if (ctx.signal.aborted && done < list.length) {
    return {
      status: "error",
      storedKeys,
      attempts: 1,
      items: counts,
      error: { code: "ABORTED", message: `Aborted after ${done} of ${list.length} items.` },
    };
  }
  const status =
    counts.escalated > 0
      ? "escalated"
      : counts.error === 0
        ? "ok"
        : counts.ok === 0 && counts.skipped === 0
          ? "error"
          : "partial";
  return {
    status,
    storedKeys,
    attempts: 1,
    items: counts,
    ...(status === "error"
      ? { error: { code: "ALL_ITEMS_FAILED", message: `All ${counts.error} items failed.` } }
      : {}),
  };
}
