import { nodeFiles, readLearnHistory, type LearnHistoryEntry } from "../../eval/learn/node-files.js";

/** A node's learning as the console shows it: the last turn's curve and the last promotion. */
export interface LearnView {
  /** The history file it was read from. */
  history: string;
  turns: number;
  /** The last turn's curve: the team's decisions trained on → share of the held-out decisions decided. */
  curve: { decisions: number; share: number; precision: number | null }[];
  last: TurnView;
  lastPromotion: TurnView | null;
}

interface TurnView {
  at: string;
  promoted: boolean;
  reason: string;
  heldOut: number | null;
  train: number | null;
  challenger: { share: number; precision: number | null; wilsonLower: number | null } | null;
  champion: { share: number; precision: number | null; wilsonLower: number | null } | null;
}

const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === "string" ? v.slice(0, 500) : "");

function model(v: unknown): TurnView["challenger"] {
  if (typeof v !== "object" || v === null) return null;
  const m = v as Record<string, unknown>;
  const share = num(m.share);
  return share === null ? null : { share, precision: num(m.precision), wilsonLower: num(m.wilsonLower) };
}

/** One entry, field by field: the history is a file on disk, anything may be in it. */
function turn(e: LearnHistoryEntry): TurnView {
  const counts = (typeof e.counts === "object" && e.counts !== null ? e.counts : {}) as Record<
    string,
    unknown
  >;
  return {
    at: str(e.at),
    promoted: e.promoted === true,
    reason: str(e.reason),
    heldOut: num(counts.heldOut),
    train: num(counts.train),
    challenger: model(e.challenger),
    champion: model(e.champion),
  };
}

/**
 * The learning of a node from the histories of the given model files (`deputy ui --learn MODEL.json`): the first
 * whose entries are of this node; null when none is.
 */
export function learnView(models: readonly string[], nodeId: string): LearnView | null {
  for (const m of models) {
    const history = nodeFiles(m).history;
    const entries = readLearnHistory(history).filter((e) => e.node === nodeId);
    const last = entries.at(-1);
    if (!last) continue;
    const promotion = entries.filter((e) => e.promoted === true).at(-1);
    const curve = (Array.isArray(last.curve) ? last.curve : []).flatMap((p: unknown) => {
      const c = (typeof p === "object" && p !== null ? p : {}) as Record<string, unknown>;
      const decisions = num(c.decisions);
      const share = num(c.share);
      return decisions === null || share === null ? [] : [{ decisions, share, precision: num(c.precision) }];
    });
    return {
      history,
      turns: entries.length,
      curve,
      last: turn(last),
      lastPromotion: promotion ? turn(promotion) : null,
    };
  }
  return null;
}
