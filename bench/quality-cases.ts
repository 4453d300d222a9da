// What the quality benches (quality-run.ts, quality-relevance.ts) share: the ids a records file already has (a
// run picks up where it stopped), and the cases in round-robin order over categories.
import { existsSync, readFileSync } from "node:fs";
import type { BfclCase } from "../src/eval/bfcl-suite.js";

/** The `id` of every record already in `file` (JSON Lines); none when it does not exist. */
export function recordedIds(file: string): Set<string> {
  if (!existsSync(file)) return new Set();
  return new Set(
    readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { id: string }).id),
  );
}

/** Round-robin over categories, so a run cut short still covers each. */
export function interleave(cases: BfclCase[]): BfclCase[] {
  const groups = new Map<string, BfclCase[]>();
  for (const c of cases) groups.set(c.category, [...(groups.get(c.category) ?? []), c]);
  const list: BfclCase[] = [];
  for (let i = 0; list.length < cases.length; i++) {
    for (const g of groups.values()) {
      const c = g[i];
      if (c) list.push(c);
    }
  }
  return list;
}

/** The protocols' split: FNV-1a of the case id, even = fit half, odd = report half (independent of run order). */
export function fitHalf(id: string): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h % 2 === 0;
}
