import { createHash } from "node:crypto";
import { canonicalJson } from "../runtime/canonical-json.js";
import { checkJsonValue } from "../schema/json-value.js";
import { toolCacheScope } from "../store/cache-entry.js";
import type { Tool } from "../tools/define-tool.js";
import type { UnitOutcome } from "./node-executor.js";
import type { ResultCacheHost } from "./result-cache-host.js";
import { toolDefinitionDigest } from "./tool-definitions.js";
import type { ToolNode } from "./tool-node.js";

/**
 * Cached tool results (`cache: { ttl }` on a tool node, or on the tool's definition): a delegate-safe (read-only)
 * tool called again with the same arguments before the entry expires is not called; its stored result is the
 * unit's value, marked `cached: true` in the unit's details (so in the manifest and the console). Entries live
 * in the run store's cache table, so they outlive the run and are shared by every process on the store.
 */

/** Calls in flight by key, per run (its cache host), so equal items running at once make one call. */
const inflightOf = new WeakMap<ResultCacheHost, Map<string, Promise<UnitOutcome>>>();

/** The seconds `tool`'s results are kept for at `node`, or `undefined` when they are not cached. */
export function cacheTtlOf(node: Pick<ToolNode, "cache">, tool: Tool): number | undefined {
  // Never for a tool with side effects: validation and defineTool refuse it, and this holds anyway.
  if (!tool.delegateSafe) return undefined;
  return node.cache?.ttl ?? tool.cache?.ttl;
}

/**
 * The key of a call: the tool's definition digest (description, input schema, annotations and side-effect policy:
 * a changed tool never answers from what its former definition stored) and the canonical JSON of the arguments.
 */
export function resultCacheKey(tool: Tool, args: Record<string, unknown>, digest = toolDigestText(tool)) {
  return `tool:${createHash("sha256")
    .update(`${digest}\n${canonicalJson(args)}`)
    .digest("hex")}`;
}

/** A tool's definition digest as one text (compute once per prepared node). */
export function toolDigestText(tool: Tool): string {
  return canonicalJson([tool.name, toolDefinitionDigest(tool)]);
}

/**
 * The stored result under `key` when there is one younger than `ttlSeconds`; otherwise `call()`, whose `ok` value
 * is stored for `ttlSeconds`. Calls of the same key in flight at once share one call. Never rejects when `call`
 * does not: the cache is a saving, so a store that cannot read or write it makes a miss, not a failed unit.
 */
export async function cachedCall(
  cache: ResultCacheHost,
  tool: Tool,
  key: string,
  ttlSeconds: number,
  call: () => Promise<UnitOutcome>,
): Promise<UnitOutcome> {
  const now = cache.now();
  const hit = await cache.store.getCached(key, now).catch(() => undefined);
  // The reader's ttl decides too: a node that takes results at most 10 s old ignores one stored for an hour.
  if (hit && now - hit.createdAt < ttlSeconds * 1000)
    return { status: "ok", value: hit.value, details: { cached: true } };
  let inflight = inflightOf.get(cache);
  if (!inflight) inflightOf.set(cache, (inflight = new Map()));
  const running = inflight.get(key);
  if (running) {
    const shared = await running;
    // A copy, as a store hands out: no two units' values are one object.
    if (shared.status === "ok")
      return { status: "ok", value: structuredClone(shared.value), details: { cached: true } };
    return call();
  }
  const pending = call().then(async (outcome) => {
    if (outcome.status === "ok" && storable(cache, outcome.value)) {
      const at = cache.now();
      await cache.store
        .putCached({
          key,
          scope: toolCacheScope(tool.name),
          value: outcome.value,
          createdAt: at,
          expiresAt: at + ttlSeconds * 1000,
        })
        .catch(() => {});
    }
    return outcome;
  });
  inflight.set(key, pending);
  try {
    return await pending;
  } finally {
    inflight.delete(key);
  }
}

/**
 * Whether a result may be stored: JSON data (anything else fails the unit at the engine's boundary) that the
 * run's redactor leaves as it is. A value with a secret in it is not cached, so no secret reaches the shared
 * table, and a hit always answers exactly what the tool returned.
 */
function storable(cache: ResultCacheHost, value: unknown): boolean {
  if (checkJsonValue(value)) return false;
  return canonicalJson(cache.redact(value)) === canonicalJson(value);
}
