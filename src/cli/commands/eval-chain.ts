import { defaultDelegateSpecs } from "../../compose/delegate-specs.js";
import type { ResolvedSpec } from "../../delegate/delegate-spec.js";
import type { ToolCallDelegate } from "../../delegate/protocol.js";
import { DistilledDelegate } from "../../distill/distilled-delegate.js";
import { InvalidOptionError } from "../../errors/index.js";
import { checkFreeTextRule, type FreeTextRule } from "../../eval/decision-match.js";
import { readDecisionSuite, type DecisionSuite } from "../../eval/decision-suite.js";
import { fitChainTrust } from "../../eval/chain-trust.js";
import {
  evaluateChain,
  type ChainAnswer,
  type ChainLevel,
  type ChainScore,
} from "../../eval/evaluate-chain.js";
import type { TrustFit } from "../../distill/trust-model.js";
import { saveTrustModel } from "../../distill/trust-model-file.js";
import { trustFittedFor } from "../../distill/trust-fitted-for.js";
import { join } from "node:path";
import { FreeFormToolCallBaseline } from "../../eval/free-form-baseline.js";
import type { CliContext } from "../cli-context.js";

/** The flags of `deputy eval` on decision records. */
export interface DecisionEvalFlags {
  suite: string;
  delegate: string[];
  compare: string[];
  minConfidence?: number;
  freeText?: string;
  freeTextOverlap?: number;
  node?: string;
  limit?: number;
  json?: boolean;
  trust?: boolean;
  targetPrecision?: number;
  trustOut?: string;
}

interface ChainResult {
  specs: string[];
  score: ChainScore;
  /** Per level, when `--trust`. */
  trust?: TrustFit[];
  /** Per level: the trust file its gate uses, when it is gated by trust. */
  trustFiles: (string | undefined)[];
}

/** A level built from its spec: the backend at its threshold, and what the spec names (kind, file, options). */
interface BuiltLevel extends ChainLevel {
  spec: string;
  target: ResolvedSpec;
}

/** A `--delegate` spec split from its `@T` suffix: the level's `min_confidence`. */
export function parseLevelSpec(spec: string): { given: string; spec: string; minConfidence?: number } {
  const m = /^(.+)@(\d*\.?\d+)$/.exec(spec);
  if (!m) return { given: spec, spec };
  const t = Number(m[2]);
  if (!(t >= 0 && t <= 1))
    throw new InvalidOptionError(`the @ threshold of --delegate ${spec}`, "a number from 0 to 1", m[2]);
  return { given: spec, spec: m[1]!, minConfidence: t };
}

/** One backend from a spec, with every built-in kind (and the free-form baseline). */
export async function createBackend(spec: string): Promise<ToolCallDelegate> {
  return spec.startsWith("free-form=")
    ? new FreeFormToolCallBaseline({ baseUrl: spec.slice("free-form=".length) })
    : defaultDelegateSpecs().create(spec);
}

/** What a spec names once its kind expanded it (a distilled model's trust file beside it included). */
function resolveSpec(spec: string): ResolvedSpec {
  if (!spec.startsWith("free-form=")) return defaultDelegateSpecs().resolve(spec);
  const url = spec.slice("free-form=".length);
  return { kind: "free-form", value: url, main: url, options: {} };
}

/**
 * The threshold of a level: its `@T`, else `--min-confidence`, else what a distilled model recommends, else
 * none (the gate checks the call, not its confidence — a node without `min_confidence`).
 */
function thresholdOf(delegate: ToolCallDelegate, own: number | undefined, flag: number | undefined) {
  if (own !== undefined) return own;
  if (flag !== undefined) return flag;
  return delegate instanceof DistilledDelegate ? delegate.model.recommendedMinConfidence : undefined;
}

/** `deputy eval --suite DECISIONS.jsonl --delegate A [--delegate B] [--compare C …]`: prints or returns JSON. */
export async function evalDecisions(flags: DecisionEvalFlags, ctx: CliContext): Promise<void> {
  if (flags.minConfidence !== undefined && !(flags.minConfidence >= 0 && flags.minConfidence <= 1))
    throw new InvalidOptionError("--min-confidence", "a number from 0 to 1", flags.minConfidence);
  const freeText = flags.freeText
    ? checkFreeTextRule({
        names: flags.freeText.split(",").map((n) => n.trim()),
        ...(flags.freeTextOverlap === undefined ? {} : { minOverlap: flags.freeTextOverlap }),
      })
    : undefined;
  if (!freeText && flags.freeTextOverlap !== undefined)
    throw new InvalidOptionError("--free-text-overlap", "given with --free-text", flags.freeTextOverlap);
  const chainsSpecs = [flags.delegate, flags.compare]
    .filter((c) => c.length > 0)
    .map((c) => c.map(parseLevelSpec));
  const suite = readDecisionSuite(flags.suite, {
    ...(flags.node === undefined ? {} : { node: flags.node }),
    ...(flags.limit === undefined ? {} : { limit: flags.limit }),
  });
  if (suite.cases.length === 0)
    throw new InvalidOptionError(
      "--suite",
      "a file with at least one decision (an accepted call or a person's decline)",
      flags.suite,
    );
  const target = flags.targetPrecision ?? 0.97;
  if (!(target > 0 && target < 1))
    throw new InvalidOptionError("--target-precision", "a number between 0 and 1", flags.targetPrecision);
  const trust = flags.trust === true || flags.trustOut !== undefined;
  const chains: ChainResult[] = [];
  // Every level of every chain is built before any runs: a bad spec or trust file is refused before anything runs.
  const built: BuiltLevel[][] = [];
  try {
    for (const specs of chainsSpecs) {
      const levels: BuiltLevel[] = [];
      built.push(levels);
      for (const { spec, minConfidence } of specs) {
        const target = resolveSpec(spec);
        const delegate = await createBackend(spec);
        const t = thresholdOf(delegate, minConfidence, flags.minConfidence);
        levels.push({ delegate, ...(t === undefined ? {} : { minConfidence: t }), spec, target });
      }
    }
    for (const [c, levels] of built.entries()) {
      const progress = ctx.isTTY && !flags.json;
      const answers: ChainAnswer[] = [];
      const score = await evaluateChain(levels, suite.cases, {
        ...(freeText ? { freeText } : {}),
        ...(trust ? { onProposal: (a) => answers.push(a) } : {}),
        ...(progress ? { onCase: (done, total) => ctx.stderr(`\r${done}/${total} records`) } : {}),
      });
      if (progress) ctx.stderr("\n");
      chains.push({
        specs: chainsSpecs[c]!.map((s) => s.given),
        score,
        ...(trust ? { trust: fitChainTrust(answers, levels.length, { targetPrecision: target }) } : {}),
        trustFiles: levels.map((l) => (l.delegate.trust ? l.target.options.trust : undefined)),
      });
    }
  } finally {
    for (const level of built.flat()) await level.delegate.close();
  }
  // Written only once everything ran: bad input creates nothing.
  if (flags.trustOut !== undefined) {
    for (const [c, chain] of chains.entries()) {
      for (const [i, fit] of (chain.trust ?? []).entries()) {
        if (fit.status !== "fitted") continue;
        const file = join(flags.trustOut, `${c === 0 ? "" : "compare-"}level-${i + 1}.trust.json`);
        const { spec, target } = built[c]![i]!;
        saveTrustModel(file, { ...fit.model, fittedFor: await trustFittedFor(target, spec) });
        ctx.stderr(`trust model of ${chain.specs[i]} written to ${file}\n`);
      }
    }
  }
  if (flags.json) {
    ctx.stdout(JSON.stringify(decisionEvalJson(suite, chains, freeText), null, 2) + "\n");
  } else {
    ctx.stdout(renderDecisionEval(suite, chains, freeText));
  }
}

/** The machine-readable result of {@link evalDecisions}. */
export function decisionEvalJson(
  suite: DecisionSuite,
  chains: ChainResult[],
  freeText: FreeTextRule | undefined,
) {
  return {
    format: "decisions" as const,
    files: suite.files,
    records: suite.cases.length,
    skipped: suite.skipped,
    freeText: freeText ? { names: freeText.names, minOverlap: freeText.minOverlap ?? 0 } : null,
    chains: chains.map(({ specs, score, trust, trustFiles }) => ({
      specs,
      levels: score.levels.map((l, i) => ({
        spec: specs[i]!,
        ...l,
        ...(l.trustGate ? { trustGate: { ...l.trustGate, file: trustFiles[i] ?? null } } : {}),
        ...(trust ? { trust: trust[i]! } : {}),
      })),
      chain: {
        decided: score.decided,
        decidedShare: score.decidedShare,
        correct: score.correct,
        precision: score.precision,
        precisionInterval: score.precisionInterval,
        passedOn: score.passedOn,
      },
    })),
  };
}

const pct = (x: number | null) => (x === null ? "-" : `${(x * 100).toFixed(1)}%`);
const interval = (i: [number, number] | null) => (i === null ? "-" : `[${pct(i[0])}, ${pct(i[1])}]`);
/** A threshold as the table shows it: at most three decimals (`--json` has it whole). */
const threshold = (x: number | null) => (x === null ? "none" : String(Math.round(x * 1000) / 1000));
const ms = (x: number | undefined) => (x === undefined ? "-" : x < 10 ? x.toFixed(2) : x.toFixed(0));

function renderDecisionEval(
  suite: DecisionSuite,
  chains: ChainResult[],
  freeText: FreeTextRule | undefined,
): string {
  const notDecisions = Object.entries(suite.skipped)
    .filter(([, n]) => n > 0)
    .map(([why, n]) => `${n} ${why}`)
    .join(", ");
  const out = [
    `${suite.cases.length} decisions from ${suite.files.join(", ")}${notDecisions ? ` (traces left out: ${notDecisions})` : ""}`,
    `exact match: canonical JSON of name and arguments${freeText ? `; ${freeText.names.join(", ")}: non-empty text${freeText.minOverlap ? ` sharing ≥ ${freeText.minOverlap} of the person's words` : ""}` : ""}`,
  ];
  const header = [
    "level",
    "min_confidence",
    "asked",
    "decided",
    "share",
    "precision",
    "95% Wilson",
    "exact",
    "p50 ms",
    "p90 ms",
  ];
  for (const [c, { specs, score, trust, trustFiles }] of chains.entries()) {
    // A level gated by trust: the trust model's threshold in a column of its own, min_confidence its floor.
    const trusted = score.levels.some((l) => l.trustGate);
    const rows = score.levels.map((l, i) => [
      `${i + 1} ${l.delegate}`,
      threshold(l.minConfidence),
      ...(trusted ? [l.trustGate ? l.trustGate.threshold.toFixed(3) : "-"] : []),
      String(l.asked),
      String(l.decided),
      pct(l.decidedShare),
      pct(l.precision),
      interval(l.precisionInterval),
      pct(l.exactAccuracy),
      ms(l.latencyMs?.median),
      ms(l.latencyMs?.p90),
    ]);
    const columns = trusted ? [header[0]!, header[1]!, "trust p ≥", ...header.slice(2)] : header;
    out.push("", `${c === 0 ? "chain" : "compare"}: ${specs.join(" → ")}`, ...table(columns, rows));
    out.push(
      ...score.levels.flatMap((l, i) =>
        l.trustGate
          ? [
              `level ${i + 1} gated by trust${trustFiles[i] ? ` (${trustFiles[i]})` : ""}: trusted probability ≥ ${l.trustGate.threshold.toFixed(3)}${l.minConfidence === null ? "" : ` and ≥ min_confidence ${threshold(l.minConfidence)}`}`,
            ]
          : [],
      ),
    );
    out.push(
      ...(trust ? trust.map((fit, i) => trustLine(fit, i, score.levels[i]!.minConfidence)) : []),
      `at the gate: ${score.decided} of ${score.records} decided (${pct(score.decidedShare)}), precision ${score.precision === null ? "-" : `${pct(score.precision)} ${interval(score.precisionInterval)}`}; ${score.passedOn} passed on to a person`,
    );
  }
  if (chains.length > 1) {
    const rows = chains.map(({ specs, score }, c) => [
      c === 0 ? "chain" : "compare",
      specs.join(" → "),
      pct(score.decidedShare),
      pct(score.precision),
      interval(score.precisionInterval),
    ]);
    out.push("", ...table(["", "levels", "decided", "precision", "95% Wilson"], rows));
  }
  return out.join("\n") + "\n";
}

/** One level's trust fit in a line: what it would accept and how that did out of fold, or what it needs. */
function trustLine(fit: TrustFit, level: number, today: number | null): string {
  const keeps = `keeps min_confidence ${threshold(today)}`;
  if (fit.status !== "fitted") {
    if (fit.status === "too_few") return `trust ${level + 1}: ${fit.reason} — ${keeps}`;
    const more = fit.needed === null ? "no call set beats the target" : `needs about ${fit.needed} decisions`;
    return `trust ${level + 1}: ${fit.reason}; ${more} — ${keeps}`;
  }
  const m = fit.model;
  const o = m.outOfFold;
  return `trust ${level + 1}: from ${m.decisions} calls (${m.signals.join(", ")}): accept p ≥ ${m.threshold.toFixed(3)}, out of fold ${o.accepted} accepted (${pct(o.coverage)}) at ${pct(o.precision)}, Wilson lower ${pct(o.wilsonLower)} ≥ ${pct(m.targetPrecision)}`;
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
