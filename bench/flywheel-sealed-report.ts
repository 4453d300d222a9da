// One condition of bench/flywheel-sealed.ts summed up from its measurement (deputy eval's level and the per-case
// records), and the printed table with the target lines.
import type { Measured } from "./flywheel-sealed-measure.js";
import {
  confidenceAuroc,
  exactCeiling,
  gateRow,
  judgeChainTarget,
  judgeTarget,
  oracleShare,
  type GateRow,
  type ScoredCase,
  type Target,
  type TargetVerdict,
} from "./flywheel-sealed-metrics.js";
import type { TrustFit } from "../dist/distill/index.js";

/** The precision every "decidable" column is measured at. */
const AT = 0.97;

/** What one condition (a model, or none, measured on a suite) came to. */
export interface ConditionSummary {
  domain: string;
  condition: string;
  label: string;
  kind: string;
  /** A chain of levels (its ranking columns are its levels' rows). */
  chain: boolean;
  /** The team's decisions it was trained on. */
  decisions: number;
  modelFile: string | null;
  minConfidence: number | null;
  /** At the model's min_confidence, as `deputy eval` gated it. */
  gate: GateRow;
  exactAccuracy: number | null;
  auroc: number | null;
  /** After the fact: a threshold picked on the measured set itself. */
  afterTheFact: { share: number; threshold: number | null };
  /** The most any ranking of the level's calls could decide at ≥ 97 %. */
  exactCeiling: number;
  trust: null | {
    status: string;
    reason?: string;
    needed?: number | null;
    threshold?: number;
    gate?: GateRow;
    /** The same target judged on the trust gate's row (reported beside the level's; not the target row). */
    target?: TargetVerdict;
  };
  target: null | (Target & TargetVerdict);
  training?: Record<string, number>;
  disagreement?: string;
}

/** The summary of a condition; `measured` undefined: no model (every record goes to a person). */
export function summarize(input: {
  domain: string;
  condition: string;
  label: string;
  kind: string;
  decisions: number;
  modelFile: string | null;
  minConfidence: number | null;
  measured: Measured | undefined;
  records?: number;
  trust?: TrustFit;
  target?: Target;
  training?: Record<string, number>;
  chain?: boolean;
}): ConditionSummary {
  const chain = input.chain === true;
  const m = input.measured;
  const cases = m?.cases ?? [];
  const records = m ? cases.length : (input.records ?? 0);
  const level = m?.level as
    | {
        decided: number;
        correct: number;
        precision: number | null;
        precisionInterval: [number, number] | null;
      }
    | undefined;
  const gate: GateRow = level
    ? {
        records,
        decided: level.decided,
        correct: level.correct,
        share: records ? level.decided / records : 0,
        precision: level.precision,
        wilson: level.precisionInterval,
      }
    : { records, decided: 0, correct: 0, share: 0, precision: null, wilson: null };
  const fit = input.trust;
  return {
    domain: input.domain,
    condition: input.condition,
    label: input.label,
    kind: input.kind,
    chain,
    decisions: input.decisions,
    modelFile: input.modelFile,
    minConfidence: input.minConfidence,
    gate,
    exactAccuracy: (m?.level.exactAccuracy as number | null | undefined) ?? null,
    auroc: m && !chain ? confidenceAuroc(cases) : null,
    afterTheFact: m && !chain ? oracleShare(cases, AT) : { share: 0, threshold: null },
    exactCeiling: m && !chain ? exactCeiling(cases, AT) : 0,
    trust: !fit ? null : trustSummary(fit, cases, input.target),
    target: input.target
      ? {
          ...input.target,
          ...(chain
            ? judgeChainTarget(gate, input.target)
            : judgeTarget(gate, cases, input.target, `min_confidence ${input.minConfidence ?? "none"}`)),
        }
      : null,
    ...(input.training ? { training: input.training } : {}),
    ...(m?.disagreement ? { disagreement: m.disagreement } : {}),
  };
}

function trustSummary(fit: TrustFit, cases: readonly ScoredCase[], target: Target | undefined) {
  if (fit.status !== "fitted") return { status: fit.status, reason: fit.reason, needed: fit.needed };
  const gate = gateRow(cases, (c) => c.trustDecided === true);
  const threshold = fit.model.threshold;
  return {
    status: fit.status,
    threshold,
    gate,
    ...(target
      ? { target: judgeTarget(gate, cases, target, `trusted probability ≥ ${threshold.toFixed(3)}`) }
      : {}),
  };
}

const pct = (x: number | null | undefined) =>
  x === null || x === undefined ? "–" : `${(x * 100).toFixed(1)} %`;
const decided = (g: GateRow) => `${g.decided} of ${g.records} (${pct(g.share)})`;
const precision = (g: GateRow) =>
  g.precision === null
    ? "–"
    : `${pct(g.precision)} [${pct(g.wilson![0])}, ${pct(g.wilson![1])}] (${g.decided - g.correct} wrong)`;

function trustCell(s: ConditionSummary): string {
  if (!s.trust) return "–";
  if (s.trust.gate)
    return `p ≥ ${s.trust.threshold!.toFixed(3)}: ${decided(s.trust.gate)}, ${precision(s.trust.gate)}`;
  return `not fitted (${s.trust.status}${s.trust.needed ? `; needs about ${s.trust.needed} decisions` : ""})`;
}

/** The printed result: the suites, one table row per condition, and the alert-triage target lines. */
export function renderSummaryTable(
  suites: Record<string, { file: string; sha256: string; records: number }>,
  summaries: readonly ConditionSummary[],
): string {
  const out = [
    `# flywheel on sealed sets: ${Object.entries(suites)
      .map(([k, v]) => `${k} ${v.file} (${v.records} records, sha256 ${v.sha256.slice(0, 12)})`)
      .join("; ")}`,
    "",
    `Precision target ${pct(AT)}. "After the fact": a threshold picked on the measured set itself (what the`,
    'confidence could separate, not a figure a user gets); "any ranking": every exact call plus the wrong share',
    "97 % allows beside them.",
    "",
    "| domain | condition | model | decisions | min_confidence | decided | precision [95 % Wilson] | exact calls | AUROC | after the fact at ≥ 97 % | any ranking at ≥ 97 % | trust gate |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const s of summaries)
    out.push(
      `| ${s.domain} | ${s.label} | ${s.modelFile ? s.kind : "none"} | ${s.decisions} | ${s.minConfidence?.toFixed(3) ?? "–"} | ` +
        `${decided(s.gate)} | ${precision(s.gate)} | ${pct(s.exactAccuracy)} | ${s.auroc?.toFixed(3) ?? "–"} | ` +
        `${s.modelFile && !s.chain ? pct(s.afterTheFact.share) : "–"} | ${s.modelFile && !s.chain ? pct(s.exactCeiling) : "–"} | ${trustCell(s)} |`,
    );
  const targets = summaries.filter((s) => s.target);
  if (targets.length)
    out.push("", "Targets (the chain, each level at its min_confidence, as deputy eval gates it):", "");
  for (const s of targets) {
    out.push(`- ${s.domain} ${s.label}: ${s.target!.line}`);
    if (s.trust?.target)
      out.push(`  - gated by its trust model instead (reported beside it): ${s.trust.target.line}`);
  }
  const disagreements = summaries.filter((s) => s.disagreement);
  for (const s of disagreements)
    out.push(
      `- WARNING ${s.domain} ${s.label}: the in-process chain disagrees with deputy eval: ${s.disagreement}`,
    );
  return out.join("\n") + "\n";
}
