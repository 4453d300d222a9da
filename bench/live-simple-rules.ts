/**
 * The relevance step's rules on questions worded unlike BFCL's (bench/results/live-simple/protocol.md, issue 39
 * item 5): each rule is applied to a model's per-case records (`quality-run.ts --decline-threshold 1`: the greedy
 * call, its answer confidence and P(null)), the encoder's relevance scores (`quality-encoder.ts`) and the
 * self-check scores (`quality-selfcheck.ts`), one half at a time, so the report half is scored only when asked.
 *
 *   node --import tsx bench/live-simple-rules.ts --half fit|report|all --label 1.5B \
 *     --records a.jsonl --relevance enc.jsonl [--selfcheck s.jsonl] [--suite DIR]… [--rule SPEC]… [--fit-rescue] [--lost]
 *
 * Several `--records`/`--relevance`/`--selfcheck` files may be given (the shared set's and live_simple's); the
 * first record of a case wins. A SPEC is a delegate spec's options as the catalogue writes them
 * (`decline=0.15,selfcheck=0.68,relevance=encoder:0.262/0.6@0.2`) plus, optionally, the revision
 * `rescue=A/S/P`: below the threshold the model is asked anyway and its call kept when its answer confidence is
 * at least A, its self-check at least S and its P(null) below P (`-` for a signal not used).
 * `--fit-rescue` searches A/S/P on the half given (the fit half, by the protocol) for the first `--rule`.
 * With `--suite` (the BFCL folders the records came from), a call is grounded as `RelevanceDelegate` grounds it
 * today — `groundedCall` on the question, with the tool's schema, so a value its enum lists counts — instead of
 * from the share the run recorded (every value spelled out: the rule `live-simple/protocol.md` was measured with).
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { answerConfidenceOfTokens } from "../src/confidence/answer-confidence.js";
import { argumentLeaves, groundedCall } from "../src/confidence/proposal-context.js";
import { bfclQuestion, bfclToToolSpec } from "../src/eval/bfcl.js";
import { bfclCases, loadBfclSuite } from "../src/eval/bfcl-suite.js";
import type { EvalRecord } from "../src/eval/evaluate-case.js";
import { fitHalf } from "./quality-cases.js";

const { values } = parseArgs({
  options: {
    half: { type: "string", default: "fit" },
    label: { type: "string", default: "model" },
    records: { type: "string", multiple: true, default: [] },
    relevance: { type: "string", multiple: true, default: [] },
    selfcheck: { type: "string", multiple: true, default: [] },
    rule: { type: "string", multiple: true, default: [] },
    suite: { type: "string", multiple: true, default: [] },
    "fit-rescue": { type: "boolean", default: false },
    lost: { type: "boolean", default: false },
  },
});
const jsonl = <T>(file: string): T[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
const firstById = <T extends { id: string }>(files: string[]): Map<string, T> => {
  const m = new Map<string, T>();
  for (const f of files) for (const r of jsonl<T>(f)) if (!m.has(r.id)) m.set(r.id, r);
  return m;
};

/** A record of `quality-run.ts` (a case's `EvalRecord`, with P(null) and the tokens when the run recorded them). */
type RecordRow = EvalRecord & { declineProbability?: number; tokens?: { piece: string; raw?: number }[] };
interface Case {
  id: string;
  set: "live" | "shared";
  irrelevant: boolean;
  score: number;
  greedyDeclined: boolean;
  correct: boolean;
  answer: number;
  decline: number | undefined;
  selfCheck: number | undefined;
  /** Every argument value (at least one) is spelled out in the question. */
  grounded: boolean;
}
const records = firstById<RecordRow>(values.records!);
const scores = firstById<{ id: string; score: number }>(values.relevance!);
const checks = firstById<{ id: string; selfCheck: number }>(values.selfcheck!);
const samples = new Map(
  values.suite!.flatMap((d) => bfclCases(loadBfclSuite(d)).map((c) => [c.sample.id, c.sample])),
);
/** Whether the call is grounded: as the delegate decides it when the suite is given, else from the record. */
function grounded(r: RecordRow): boolean {
  const sample = samples.get(r.id);
  if (!sample) return (r.verbatimShare ?? 0) >= 1 && argumentLeaves(r.arguments).length > 0;
  const fn = sample.function.find((f) => f.name === r.name);
  return groundedCall(bfclQuestion(sample), r.arguments, fn ? bfclToToolSpec(fn).parameters : undefined);
}
const wanted = values.half === "all" ? () => true : (id: string) => fitHalf(id) === (values.half === "fit");
const cases: Case[] = [...records.values()].flatMap((r) => {
  const s = scores.get(r.id);
  if (!s || r.outcome !== "proposed" || !wanted(r.id)) return [];
  return [
    {
      id: r.id,
      set: /^live_(simple|multiple)/.test(r.id) ? ("live" as const) : ("shared" as const),
      irrelevant: r.category.includes("irrelevance"),
      score: s.score,
      greedyDeclined: r.name === null || r.name === undefined,
      correct: r.correct,
      // \`--tokens\` runs record the choice confidence; the answer confidence comes from their tokens.
      answer: r.tokens
        ? answerConfidenceOfTokens(
            r.tokens.map((t) => t.piece),
            r.tokens.map((t) => t.raw ?? 0),
          )
        : (r.confidence ?? 0),
      decline: r.declineProbability,
      selfCheck: checks.get(r.id)?.selfCheck,
      grounded: grounded(r),
    },
  ];
});

interface Rule {
  T: number;
  T2?: number;
  C?: number;
  P?: number;
  S?: number;
  rescue?: { A?: number; S?: number; P?: number };
  /** A grounded call is kept by both looks of the step (the model's own P(null) and self-check still apply). */
  grounded?: boolean;
}
function parseRule(spec: string): Rule {
  const rule: Rule = { T: -2 };
  for (const part of spec.split(",")) {
    const [k, v = ""] = part.split("=");
    if (k === "decline") rule.P = Number(v);
    else if (k === "selfcheck") rule.S = Number(v);
    else if (k === "relevance") {
      const m = /^encoder:([\d.]+)(?:\/([\d.]+)@([\d.]+))?$/.exec(v);
      if (!m) throw new Error(`relevance=${v}`);
      rule.T = Number(m[1]);
      if (m[2]) [rule.T2, rule.C] = [Number(m[2]), Number(m[3])];
    } else if (k === "rescue") {
      const [A, S, P] = v.split("/").map((x) => (x === "-" || x === "" ? undefined : Number(x)));
      rule.rescue = { A, S, P };
    } else if (k === "grounded") rule.grounded = true;
    else if (k !== "none") throw new Error(`unknown option ${k}`);
  }
  return rule;
}
const ruleText = (r: Rule) =>
  [
    r.P !== undefined ? `decline=${r.P}` : "",
    r.S !== undefined ? `selfcheck=${r.S}` : "",
    r.T > -2 ? `relevance=encoder:${r.T}${r.T2 !== undefined ? `/${r.T2}@${r.C}` : ""}` : "",
    r.rescue ? `rescue=${[r.rescue.A, r.rescue.S, r.rescue.P].map((x) => x ?? "-").join("/")}` : "",
    r.grounded ? "grounded" : "",
  ]
    .filter(Boolean)
    .join(",") || "none";

/** Whether the rule declines the case (the greedy decline always counts). */
function declines(r: Rule, c: Case): boolean {
  if (c.greedyDeclined) return true;
  const modelSays =
    (r.P !== undefined && (c.decline ?? 0) >= r.P) || (r.S !== undefined && (c.selfCheck ?? 1) < r.S);
  const spared = r.grounded === true && c.grounded;
  if (c.score < r.T) {
    if (spared) return modelSays;
    if (!r.rescue) return true;
    const { A, S, P } = r.rescue;
    const kept =
      (A === undefined || c.answer >= A) &&
      (S === undefined || (c.selfCheck ?? 0) >= S) &&
      (P === undefined || (c.decline ?? 1) < P);
    return !kept || modelSays;
  }
  if (r.T2 !== undefined && c.score < r.T2 && c.answer < r.C! && !spared) return true;
  return modelSays;
}

interface Tally {
  irr: number;
  declined: number;
  calls: number;
  without: number;
  with: number;
}
function tally(list: Case[], r: Rule): Tally {
  const t: Tally = { irr: 0, declined: 0, calls: 0, without: 0, with: 0 };
  for (const c of list) {
    const d = declines(r, c);
    if (c.irrelevant) {
      t.irr++;
      if (d) t.declined++;
    } else {
      t.calls++;
      if (c.correct && !c.greedyDeclined) t.without++;
      if (c.correct && !d) t.with++;
    }
  }
  return t;
}
const lost = (t: Tally) => (100 * (t.without - t.with)) / Math.max(1, t.calls);
const pct = (k: number, n: number) => (n === 0 ? "–" : `${((100 * k) / n).toFixed(0)} % (${k}/${n})`);

function row(label: string, list: Case[], r: Rule): string {
  const t = tally(list, r);
  return `| ${label} | ${ruleText(r)} | ${pct(t.declined, t.irr)} | ${pct(t.without, t.calls)} | ${pct(t.with, t.calls)} | ${lost(t).toFixed(1)} |`;
}
const rules = values.rule!.map(parseRule);
const sets: [string, Case[]][] = [
  ["live_simple", cases.filter((c) => c.set === "live")],
  ["shared set", cases.filter((c) => c.set === "shared")],
];
console.log(`${values.label}, ${values.half} half: ${cases.length} cases with records`);
console.log("| set | rule | irrelevance declined | exact without the step | exact with it | points lost |");
console.log("|---|---|---|---|---|---|");
for (const [name, list] of sets) if (list.length) for (const r of rules) console.log(row(name, list, r));
if (values.lost)
  for (const r of rules)
    for (const c of cases.filter((x) =>
      x.irrelevant ? !declines(r, x) : x.correct && !x.greedyDeclined && declines(r, x),
    ))
      console.log(
        `${c.irrelevant ? "kept" : "lost"} by ${ruleText(r)}: ${c.id} relevance ${c.score.toFixed(3)} answer ${c.answer.toFixed(2)}` +
          ` self-check ${c.selfCheck?.toFixed(2) ?? "–"} P(null) ${c.decline?.toFixed(3) ?? "–"}` +
          ` ${c.grounded ? "grounded" : "not grounded"}`,
      );

if (values["fit-rescue"] && rules[0]) {
  // The revision (protocol step 2): the rescue that keeps the most live_simple calls while the shared set's
  // irrelevance declined stays at >= 80 % of what the first rule declines there. Ties: the stricter rescue.
  const base = rules[0];
  const [live, shared] = [sets[0]![1], sets[1]![1]];
  const floor = 0.8 * tally(shared, base).declined;
  let best: { r: Rule; live: Tally; shared: Tally } | undefined;
  // The grid: the rescue's three signals, and the model's own P(null) and self-check thresholds moved up (a
  // higher P, a lower S decline less); `undefined` leaves a signal out.
  const withBase = (xs: (number | undefined)[], b: number | undefined) =>
    b === undefined ? [undefined] : xs;
  for (const A of [undefined, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
    for (const S of withBase([undefined, 0.5, 0.6, 0.68, 0.75], base.S))
      for (const P of withBase(process.env.NO_RESCUE_P ? [undefined] : [undefined, 0.1, 0.15, 0.2], base.P))
        for (const P2 of withBase([base.P!, 0.2, 0.25, 0.3, 0.5], base.P))
          for (const S2 of withBase([base.S!, 0.6, 0.5, 0.4], base.S))
            for (const grounded of [false, true]) {
              const r: Rule = { ...base, P: P2, S: S2, rescue: { A, S, P }, grounded };
              const l = tally(live, r);
              const s = tally(shared, r);
              if (s.declined < floor) continue;
              if (
                !best ||
                l.with > best.live.with ||
                (l.with === best.live.with && s.declined > best.shared.declined)
              )
                best = { r, live: l, shared: s };
            }
  if (best) {
    console.log(`\nbest rescue on this half (shared irrelevance declined >= ${floor.toFixed(1)}):`);
    console.log(row("live_simple", live, best.r));
    console.log(row("shared set", shared, best.r));
  } else console.log("\nno rescue keeps the shared set's declines");
}
