import type { RepairChange } from "../store/run-state.js";

/** A value is shown cut to this many characters (a model may write a page into an argument). */
const MAX_VALUE_CHARS = 300;

// What JSON.stringify leaves as it is but a terminal or a page must not receive: DEL, C1 controls (`\x9b` is a
// one-byte CSI) and the bidirectional marks that reorder what is shown. C0 controls JSON already escapes.
const INVISIBLE = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * A repair's changes as text, one line per field under a line per node: `before → after`, each value as JSON
 * with every control or invisible character escaped (the values are a model's text: nothing in them may move
 * the cursor, recolour the terminal or reorder the line), cut when long.
 *
 * @example
 * renderRepairDiff(repair.diff ?? []);
 * // ~ fetch
 * //     tool: "fetch_v1" → "fetch_v2"
 * //     args.url: "http://old" → "http://new"
 */
export function renderRepairDiff(changes: readonly RepairChange[]): string {
  const lines: string[] = [];
  let node: string | undefined;
  for (const c of changes) {
    if (c.nodeId !== node) {
      node = c.nodeId;
      lines.push(`~ ${shownText(node)}`);
    }
    lines.push(`    ${shownText(c.field)}: ${shownValue(c.before)} → ${shownValue(c.after)}`);
  }
  return lines.length ? `${lines.join("\n")}\n` : "(no change)\n";
}

/** A value as JSON safe to show (`(unset)` for a field not set). */
export function shownValue(value: unknown): string {
  if (value === undefined) return "(unset)";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  text = escapeInvisible(text);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

/** A name (a node id, a field) safe to show: control characters as JSON escapes. */
function shownText(text: string): string {
  const json = JSON.stringify(text);
  return escapeInvisible(json.slice(1, -1));
}

function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
