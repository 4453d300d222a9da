import { NodeError } from "../errors/node-error.js";
import { commit, type EngineContext } from "./engine-context.js";
import { ItemLoop } from "./item-loop.js";
import type { BaseNode } from "./plan-schema.js";
import type { NodeRecord } from "../store/run-state.js";
import { applySelectPath, parseSelectPath } from "../runtime/select-path.js";
import { renderString, type TemplateScope } from "../runtime/template.js";

/**
 * Fans a node out over a list: at most `max_concurrency` items in flight, each item committed (its record and
 * its artifact) before its slot is released, so a crash repeats at most the items that were in flight.
 */
export async function runForEach(
  ctx: EngineContext,
  node: BaseNode,
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
  // The node's record says how many items there are while they run, so a viewer of the store (the console) shows
  // progress from records alone, never by rebuilding the list from the plan. Only a run that persists has viewers.
  if (ctx.persist) {
    const items = { total: list.length, ok: 0, error: 0, skipped: 0, escalated: 0, reused: 0 };
    await commit(ctx, [
      { kind: "node", nodeId: node.id, record: { status: "running", storedKeys: [], attempts: 1, items } },
    ]);
  }
  const loop = new ItemLoop(ctx, node, base, list);
  await loop.run();
  const { counts, firstFailure, done } = loop;
  const storedKeys = loop.keys.filter((k): k is string => k !== undefined);
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
