/**
 * The relevance step's protocol (bench/results/relevance/protocol.md) on one model's records: the thresholds are
 * set on the fit half (FNV-1a of the case id, even) and the report half is scored once with them. Rules:
 *   A — decline before the call when the encoder's relevance score is below T (T from the fit half's call
 *       cases alone: at most 2 % of them declined; model-independent);
 *   B — A, and after the call also when the score is below T2 and the answer confidence below C;
 *   C — A, or LocalDelegate's declineThreshold P (records with `declineProbability`);
 *   D — A, or B's second look, or C's P together (`decline=P,relevance=encoder:T/T2@C`; protocol-1.5b.md);
 *   E — D, or the self-check score S below s (`--selfcheck FILE`, bench/quality-selfcheck.ts;
 *       protocol-selfcheck.md).
 * A greedy decline counts as a decline in every rule.
 *
 *   node --import tsx bench/quality-relevance-fit.ts --relevance encoder.jsonl --label 0.5B [--weak 0.6@0.3] \
 *     records.jsonl [more.jsonl]
 *
 * Records (quality-run.ts): the first file that has a case wins. `confidence` is the answer confidence; records
 * with `tokens` (`--tokens` runs, where `confidence` is the choice confidence) get it from their tokens.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { answerConfidenceOfTokens } from "../src/confidence/answer-confidence.js";
import { fitHalf } from "./quality-cases.js";

interface Row {
  id: string;
  category: string;
  outcome: string;
  name?: string | null;
  correct: boolean;
  confidence: number | null;
  declineProbability?: number;
  tokens?: { piece: string; raw?: number }[];
}
interface Scored {
  id: string;
  category: string;
  score: number;
}
interface Case {
  id: string;
  irrelevant: boolean;
  fit: boolean;
  score: number;
  greedyDeclined: boolean;
  correct: boolean;
  answer: number;
  decline: number | undefined;
  selfCheck: number | undefined;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    relevance: { type: "string" },
    label: { type: "string", default: "model" },
    // Also score fixed settings, BELOW@C (e.g. another model's fitted ones), beside the protocol's choice.
    weak: { type: "string" },
    // Write the ids rule D declines (one a line).
    "write-declined": { type: "string" },
    selfcheck: { type: "string" },
  },
});
const lines = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

const scores = lines<Scored>(values.relevance!);
const rows = new Map<string, Row>();
for (const file of positionals)
  for (const r of lines<Row>(file)) if (r.outcome === "proposed" && !rows.has(r.id)) rows.set(r.id, r);
const irrelevant = (category: string) => category.includes("irrelevance");
const answerOf = (r: Row) =>
  r.tokens
    ? answerConfidenceOfTokens(
        r.tokens.map((t) => t.piece),
        r.tokens.map((t) => t.raw ?? 0),
      )
    : (r.confidence ?? 0);

const selfChecks = new Map(
  (values.selfcheck ? lines<{ id: string; selfCheck: number }>(values.selfcheck) : []).map(
    (c) => [c.id, c.selfCheck] as const,
  ),
);
const cases: Case[] = scores.flatMap((s) => {
  const r = rows.get(s.id);
  if (!r) return [];
  return [
    {
      id: s.id,
      irrelevant: irrelevant(s.category),
      fit: fitHalf(s.id),
      score: s.score,
      greedyDeclined: r.name === null,
      correct: r.correct,
      answer: answerOf(r),
      decline: r.declineProbability,
      selfCheck: selfChecks.get(s.id),
    },
  ];
});

type Rule = (c: Case) => boolean;
interface Tally {
  irr: number;
  declined: number;
  calls: number;
  exactToday: number;
  exactNew: number;
  callsDeclined: number;
}
function tally(list: Case[], declines: Rule): Tally {
  const t: Tally = { irr: 0, declined: 0, calls: 0, exactToday: 0, exactNew: 0, callsDeclined: 0 };
  for (const c of list) {
    const declined = c.greedyDeclined || declines(c);
    if (c.irrelevant) {
      t.irr++;
      if (declined) t.declined++;
    } else {
      t.calls++;
      if (c.correct) t.exactToday++;
      if (declined) t.callsDeclined++;
      if (!declined && c.correct) t.exactNew++;
    }
  }
  return t;
}
const lostPoints = (t: Tally) => (100 * (t.exactToday - t.exactNew)) / Math.max(1, t.calls);

/** 95 % Wilson interval of k/n. */
function wilson(k: number, n: number): [number, number] {
  if (n === 0) return [NaN, NaN];
  const z = 1.96;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [centre - half, centre + half];
}

const fit = cases.filter((c) => c.fit);
const report = cases.filter((c) => !c.fit);

// Rule A: model-independent, from all scored fit-half call cases (not only this model's).
const fitCallScores = scores
  .filter((s) => fitHalf(s.id) && !irrelevant(s.category))
  .map((s) => s.score)
  .sort((a, b) => a - b);
const allowed = Math.floor(0.02 * fitCallScores.length);
// Declining below the (allowed+1)-th lowest score declines exactly `allowed` of them (ties aside).
const T = fitCallScores[allowed]!;
const ruleA: Rule = (c) => c.score < T;

function choose<P>(grid: P[], rule: (p: P) => Rule): { p: P; t: Tally } | undefined {
  let best: { p: P; t: Tally } | undefined;
  for (const p of grid) {
    const t = tally(fit, rule(p));
    if (lostPoints(t) > 2) continue;
    if (!best || t.declined > best.t.declined) best = { p, t };
  }
  return best;
}
// Grid order is the tie-break order: lower C first, then lower T2.
const gridB = [0.1, 0.2, 0.3, 0.5].flatMap((C) => [0.45, 0.5, 0.55, 0.6].map((T2) => ({ T2, C })));
const ruleB =
  (p: { T2: number; C: number }): Rule =>
  (c) =>
    ruleA(c) || (c.score < p.T2 && c.answer < p.C);
const B = choose(gridB, ruleB);
const hasDecline = cases.some((c) => c.decline !== undefined);
const ruleC =
  (P: number): Rule =>
  (c) =>
    ruleA(c) || (c.decline ?? 0) >= P;
const C = hasDecline ? choose([0.05, 0.1, 0.15, 0.2, 0.3], ruleC) : undefined;
// Tie-break order for D: the higher P first, then the lower C, then the lower T2.
const gridD = [0.3, 0.2, 0.15, 0.1, 0.05].flatMap((P) => gridB.map((b) => ({ ...b, P })));
const ruleD =
  (p: { T2: number; C: number; P: number }): Rule =>
  (c) =>
    ruleB(p)(c) || (c.decline ?? 0) >= p.P;
const D = hasDecline ? choose(gridD, ruleD) : undefined;
// E: D as fitted (B without P(decline) records), or S < s; grid order is the tie-break order (the lower s first).
const ruleE =
  (s: number): Rule =>
  (c) =>
    (D ? ruleD(D.p)(c) : B ? ruleB(B.p)(c) : ruleA(c)) || (c.selfCheck ?? 1) < s;
const E =
  selfChecks.size > 0
    ? choose([0.1, 0.2, 0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9], ruleE)
    : undefined;

const pct = (k: number, n: number) => (n === 0 ? "–" : `${Math.round((100 * k) / n)} % (${k}/${n})`);
function line(label: string, list: Case[], rule: Rule): string {
  const t = tally(list, rule);
  const [lo, hi] = wilson(t.declined, t.irr);
  return `| ${label} | ${pct(t.declined, t.irr)} | ${Math.round(100 * lo)}–${Math.round(100 * hi)} % | ${pct(t.exactToday, t.calls)} | ${pct(t.exactNew, t.calls)} | ${lostPoints(t).toFixed(1)} | ${t.callsDeclined} |`;
}
console.log(
  `${values.label}: ${cases.length} cases with records (fit ${fit.length}, report ${report.length}); rule A's T = ${T.toFixed(3)}`,
);
console.log(
  `fit half: A declines ${pct(tally(fit, ruleA).declined, tally(fit, ruleA).irr)}; B chose ${B ? `T2 ${B.p.T2}, C ${B.p.C}` : "none"}; C chose ${C ? `P ${C.p}` : "none"}; D chose ${D ? `T2 ${D.p.T2}, C ${D.p.C}, P ${D.p.P} (fit half declines ${pct(D.t.declined, D.t.irr)})` : "none"}${E ? `; E chose s ${E.p} (fit half declines ${pct(E.t.declined, E.t.irr)}, ${lostPoints(E.t).toFixed(1)} points lost)` : ""}\n`,
);
console.log(
  "| rule (half) | irrelevance declined | 95 % Wilson | exact today | exact new | points lost | calls declined |",
);
console.log("|---|---|---|---|---|---|---|");
const rules: [string, Rule][] = [
  ["today (greedy)", () => false],
  [`A: relevance < ${T.toFixed(3)}`, ruleA],
  ...(B ? [[`B: A, or relevance < ${B.p.T2} and answer < ${B.p.C}`, ruleB(B.p)] as [string, Rule]] : []),
  ...(C ? [[`C: A, or P(decline) ≥ ${C.p}`, ruleC(C.p)] as [string, Rule]] : []),
  ...(D
    ? [
        [`D: A, or relevance < ${D.p.T2} and answer < ${D.p.C}, or P(decline) ≥ ${D.p.P}`, ruleD(D.p)] as [
          string,
          Rule,
        ],
      ]
    : []),
  ...(E ? [[`E: ${D ? "D" : "B"}, or self-check < ${E.p}`, ruleE(E.p)] as [string, Rule]] : []),
];
if (values.weak) {
  const [T2, Cw] = values.weak.split("@").map(Number) as [number, number];
  rules.push([`B with fixed ${T2}@${Cw} (not fitted here)`, ruleB({ T2, C: Cw })]);
}
for (const [label, rule] of rules) console.log(line(`${label} (report)`, report, rule));
for (const [label, rule] of rules) console.log(line(`${label} (whole set)`, cases, rule));
if (values["write-declined"] && D) {
  // The ids rule D (E, with --selfcheck) declines, for bench/confidence-threshold.ts --declined
  // (protocol-1.5b.md and protocol-selfcheck.md, item 3).
  const rule = E ? ruleE(E.p) : ruleD(D.p);
  const ids = cases.filter((c) => c.greedyDeclined || rule(c)).map((c) => c.id);
  writeFileSync(values["write-declined"], ids.join("\n") + "\n");
  console.error(`wrote ${ids.length} ids rule ${E ? "E" : "D"} declines to ${values["write-declined"]}`);
}
