import { createHash } from "node:crypto";
import type { DelegateTask } from "../../records/delegate-task.js";
import { canonicalJson } from "../../runtime/canonical-json.js";

/**
 * A decision's content key: a sha256 (hex, first 16 characters) of what the node was asked — the instruction and
 * the facts' canonical JSON. The call is left out on purpose: a model that trained on an input has seen it,
 * whichever call it learned for it.
 */
export function decisionHash(instruction: string, facts: Record<string, unknown>): string {
  return createHash("sha256")
    .update(`${instruction}\0${canonicalJson(facts)}`)
    .digest("hex")
    .slice(0, 16);
}

/** What {@link splitDecisions} made of a node's decisions. */
export interface DecisionSplit<T> {
  /** Trained and tuned on, in the seed's order (a curve takes growing prefixes of it). */
  train: T[];
  /** Neither trained nor tuned on, in the seed's order. */
  heldOut: T[];
}

/**
 * Splits decisions into a training part and a held-out part by a seeded hash of each decision's content: a
 * decision lands in the same part whatever else is in the set, so a decision held out once stays held out when
 * more decisions come, as long as the seed stays. Deterministic; no decision is in both parts.
 */
export function splitDecisions<T extends Pick<DelegateTask, "instruction" | "facts">>(
  decisions: readonly T[],
  options: { seed: number; heldOutShare: number },
): DecisionSplit<T> {
  const keyed = decisions.map((d) => {
    const h = createHash("sha256")
      .update(`${options.seed}\0${decisionHash(d.instruction, d.facts)}`)
      .digest();
    return { d, u: h.readUInt32BE(0) / 2 ** 32, order: h.toString("hex") };
  });
  keyed.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0));
  return {
    train: keyed.filter((k) => k.u >= options.heldOutShare).map((k) => k.d),
    heldOut: keyed.filter((k) => k.u < options.heldOutShare).map((k) => k.d),
  };
}
