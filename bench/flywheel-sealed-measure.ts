// The two steps of bench/flywheel-sealed.ts that touch models: training the alert-triage recipe (what
// `deputy distill` does with the same files and flags, plus the trust model `deputy learn` fits from the same
// out-of-fold scores), and measuring a model file on a suite — `deputy eval --suite … --json` for the gate's
// figures, and the same chain once more in this process for the per-case records (confidence, exact or not, the
// trust model's verdict), which must agree with deputy eval's counts.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { root } from "./alert-data.js";
import type { ScoredCase } from "./flywheel-sealed-metrics.js";
import { canonicalJson } from "../dist/runtime/canonical-json.js";
import {
  DEFAULT_CONFIDENCE_FLOOR,
  DistilledDelegate,
  examplesFromTraces,
  fitTrustModel,
  loadModelFile,
  saveModelFile,
  saveTrustModel,
  trainDistilledWithEncoder,
  TrustModel,
  type TextEncoder,
  type TrustFit,
} from "../dist/distill/index.js";
import { acceptGate } from "../dist/delegate/index.js";
import { evaluateChain, readDecisionSuite, type ChainAnswer } from "../dist/eval/index.js";
import { readTraces } from "../dist/traces/read-traces.js";
import type { Tool } from "../dist/tools/define-tool.js";
// @ts-expect-error -- an untyped example script
import { counterfactuals } from "../examples/alert-triage/data/counterfactual.mjs";

const deputy = `${root}bin/deputy.js`;
/** What makes two inputs the same one, as deputy distill keys them (its `inputKey`, internal to the CLI). */
const inputKey = (instruction: string, facts: Record<string, unknown>) =>
  `${instruction}\0${canonicalJson(facts)}`;
const alertData = `${root}examples/alert-triage/data`;

/**
 * Every alert-triage decision set the team made, in the order they were made (holdout13 last: development data
 * since it was measured). A condition "after all development decisions" trains on these, in this order: when two
 * sets label the same input, the later one wins.
 */
export const DECISION_SETS = [
  "escalations",
  "development",
  "handwritten",
  "holdout3",
  "holdout2",
  "holdout4",
  "holdout5",
  "holdout6",
  "holdout7",
  "holdout8",
  "holdout9",
  "holdout10",
  "holdout11",
  "holdout12",
  "holdout13",
] as const;

/**
 * The decision sets a recipe measured on `sealed` trained on: those made before it, so that re-running an earlier
 * protocol after later sets became development data computes what it computed.
 */
export function setsBefore(sealed: (typeof DECISION_SETS)[number]): (typeof DECISION_SETS)[number][] {
  return DECISION_SETS.slice(0, DECISION_SETS.indexOf(sealed));
}

/** The alert-triage recipe's constants (docs/distill.md's learning curve, aimed at 97 %): see the protocol. */
export const ALERT_RECIPE = {
  node: "triage_items",
  generated: ["train", "styled", "sources", "notices"] as readonly string[],
  tuning: "heldout",
  targetPrecision: 0.97,
  confidenceFloor: DEFAULT_CONFIDENCE_FLOOR as number,
  heldOutShare: 0.2,
  seed: 1,
  /** counterfactual.mjs's kinds of copies (its default: non-production only). */
  counterfactualKinds: ["non-production"] as readonly string[],
} as const;

/** A trained alert-triage condition: the model file, its trust fit, and what it trained on. */
export interface AlertTraining {
  modelFile: string;
  trustFile: string | null;
  trust: TrustFit;
  minConfidence: number;
  /** What `deputy distill` reads for this condition: the trace files (generated, then copies) and `--resolved`. */
  inputs: { traces: string[]; resolved: string[] };
  counts: { decisions: number; counterfactual: number; generated: number; examples: number; choseOn: number };
}

/**
 * Trains the alert-triage model on the generated sets, non-production copies of half the decisions' pages and
 * tickets (counterfactual.mjs, as scripts/example-encoder.sh writes them) and the decisions as `--resolved`, with
 * the heldout.jsonl tuning set — the inputs `deputy distill` reads, assembled as it assembles them — then fits the
 * trust model from the decisions' out-of-fold scores (as `deputy learn` does). Writes `PREFIX.model.json`,
 * `PREFIX.counterfactual.jsonl` and, when one could be fitted, `PREFIX.trust.json`.
 */
export async function trainAlertCondition(
  sets: readonly string[],
  prefix: string,
  encoder: TextEncoder,
  recipe: Partial<typeof ALERT_RECIPE> = {},
): Promise<AlertTraining> {
  const r = { ...ALERT_RECIPE, ...recipe };
  const peopleFiles = sets.map((s) => `${alertData}/${s}.jsonl`);
  const raw = peopleFiles.flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as unknown),
  );
  const copies = counterfactuals(raw, { kinds: r.counterfactualKinds }) as unknown[];
  const copiesFile = `${prefix}.counterfactual.jsonl`;
  writeFileSync(copiesFile, copies.map((c) => JSON.stringify(c)).join("\n") + "\n");
  // deputy distill's order: the trace files, then the --resolved files last (a person's label wins).
  const files = [...r.generated.map((g) => `${alertData}/${g}.jsonl`), copiesFile];
  const generated = files.flatMap((f) => readTraces(f).traces);
  const people = peopleFiles.flatMap((f) => readTraces(f).traces);
  const selection = examplesFromTraces([...generated, ...people], r.node);
  const keys = new Set(people.map((t) => inputKey(t.instruction, t.facts)));
  const validation = new Set(selection.examples.filter((e) => keys.has(inputKey(e.instruction, e.facts))));
  const heldOut = examplesFromTraces(readTraces(`${alertData}/${r.tuning}.jsonl`).traces, r.node).examples;
  const result = await trainDistilledWithEncoder(
    selection.examples,
    {
      node: r.node,
      targetPrecision: r.targetPrecision,
      confidenceFloor: r.confidenceFloor,
      heldOutShare: r.heldOutShare,
      seed: r.seed,
      heldOut,
      ...(validation.size ? { validation } : {}),
    },
    encoder,
  );
  const modelFile = `${prefix}.model.json`;
  saveModelFile(modelFile, result.model);
  const clamp01 = (v: number) => (Number.isFinite(v) ? Math.min(1, Math.max(0, v)) : 0);
  // A model that takes its class decision from a tuned reader's head gets no trust model: the validation scores
  // are its own heads', which it no longer decides by.
  const trust = result.model.readerHead
    ? ({
        status: "unsupported",
        decisions: 0,
        needed: null,
        reason: "the level decides by a tuned reader's head",
        ignored: 0,
      } as const)
    : fitTrustModel(
        result.validationScores.map((s) => ({
          signals: { confidence: clamp01(s.score) },
          correct: s.correct,
        })),
        { targetPrecision: r.targetPrecision },
      );
  let trustFile: string | null = null;
  if (trust.status === "fitted") {
    trustFile = `${prefix}.trust.json`;
    saveTrustModel(trustFile, trust.model);
  }
  return {
    modelFile,
    trustFile,
    trust,
    minConfidence: result.recommendedMinConfidence,
    inputs: { traces: files, resolved: peopleFiles },
    counts: {
      decisions: people.length,
      counterfactual: copies.length,
      generated: generated.length - copies.length,
      examples: selection.examples.length,
      choseOn: result.validationExamples,
    },
  };
}

/**
 * The chain's second level: the n-gram model `deputy distill` trains from the same inputs without `--encoder`
 * (the command itself, run as a user runs it). Writes `PREFIX.ngram.json`; returns its path.
 */
export function trainNgramModel(
  training: AlertTraining,
  prefix: string,
  recipe: Partial<typeof ALERT_RECIPE> = {},
): string {
  const r = { ...ALERT_RECIPE, ...recipe };
  const modelFile = `${prefix}.ngram.json`;
  execFileSync(
    process.execPath,
    [
      deputy,
      "distill",
      ...training.inputs.traces,
      "--resolved",
      ...training.inputs.resolved,
      "--holdout",
      `${alertData}/${r.tuning}.jsonl`,
      "--node",
      r.node,
      "--target-precision",
      String(r.targetPrecision),
      "--confidence-floor",
      String(r.confidenceFloor),
      "--seed",
      String(r.seed),
      "--out",
      modelFile,
    ],
    { encoding: "utf8", stdio: ["ignore", "ignore", "inherit"] },
  );
  return modelFile;
}

/** One level of a measured chain: its model file, its gate threshold (default: the file's) and stability check. */
export interface ChainLevel {
  file: string;
  minConfidence?: number;
  /** `stable=` in the spec: the share of copies with words left out that must repeat the call. */
  stable?: number;
}

/**
 * A chain of model files on a suite, as a delegate node's cascade runs it (`deputy eval --delegate A --delegate B
 * --json`, each level at its min_confidence — the level's, else its model's — with its stability check): the chain's figures as the level, and per case whether any
 * level decided it and whether the deciding call (else the last level's) is the person's. The in-process chain
 * must agree with deputy eval's counts. Ranking measures do not apply to a chain's mixed confidences: the rows of
 * its levels alone carry them.
 */
export async function measureChainOnSuite(
  levels: readonly ChainLevel[],
  suiteFile: string,
  encoder: TextEncoder,
): Promise<Measured> {
  const args = ["eval", "--suite", suiteFile, "--json"];
  for (const l of levels)
    args.push(
      "--delegate",
      `distilled=${l.file}${l.stable === undefined ? "" : `,stable=${l.stable}`}${l.minConfidence === undefined ? "" : `@${l.minConfidence}`}`,
    );
  const report = JSON.parse(execFileSync(process.execPath, [deputy, ...args], { encoding: "utf8" })) as {
    chains: { levels: Measured["level"][]; chain: Measured["level"] }[];
  };
  const chain = report.chains[0]!;
  const suite = readDecisionSuite(suiteFile);
  const delegates = levels.map((l) => {
    const model = loadModelFile(l.file);
    return {
      delegate: new DistilledDelegate({
        model,
        ...(model.encoder ? { encoder } : {}),
        ...(l.stable === undefined ? {} : { stability: { min: l.stable } }),
      }),
      minConfidence: l.minConfidence ?? model.recommendedMinConfidence,
    };
  });
  const answers: ChainAnswer[] = [];
  let score;
  try {
    score = await evaluateChain(delegates, suite.cases, { onProposal: (a) => answers.push(a) });
  } finally {
    for (const d of delegates) await d.delegate.close();
  }
  const disagreement =
    score.decided === chain.chain.decided && score.correct === chain.chain.correct
      ? ""
      : `in process ${score.decided} decided, ${score.correct} right; deputy eval ${chain.chain.decided}, ${chain.chain.correct}`;
  const cases = suite.cases.map((c, i) => {
    const mine = answers.filter((x) => x.item === i);
    const decidedBy = mine.find((a) => a.verdict === "accepted");
    const last = decidedBy ?? mine[mine.length - 1];
    return {
      eligible: false,
      confidence: 0,
      exact: last?.correct ?? false,
      decided: decidedBy !== undefined,
      record: {
        item: i,
        at: c.at,
        facts: c.facts,
        person: c.call,
        decidedBy: decidedBy ? decidedBy.level : null,
        levels: mine.map((a) => ({
          level: a.level,
          proposal: a.proposal ?? null,
          confidence: a.confidence,
          verdict: a.verdict,
          exact: a.correct,
        })),
      },
    };
  });
  return {
    level: { ...chain.chain, exact: 0, exactAccuracy: null, levels: chain.levels },
    cases,
    disagreement,
  };
}

/** What one model did on a suite. */
export interface Measured {
  /** deputy eval's level (share, precision, Wilson interval, exact accuracy, verdicts, latency). */
  level: Record<string, unknown> & { decided: number; correct: number; exact: number };
  cases: (ScoredCase & { record: Record<string, unknown> })[];
  /** Empty when the in-process chain agrees with deputy eval; else what differs. */
  disagreement: string;
}

const CALL_VERDICTS = new Set(["accepted", "low_confidence", "unscored"]);

/**
 * `deputy eval --suite SUITE --delegate distilled=MODEL[@T] --json` (the level gated at the model's min_confidence,
 * or at `minConfidence` T when given), and the same one-level chain in process for per-case records; with `trust`,
 * each call the gate could take is judged again by the accept gate with the trust model, as a node whose backend
 * carries it judges it.
 */
export async function measureOnSuite(
  modelFile: string,
  suiteFile: string,
  encoder: TextEncoder,
  options: { freeText?: string[]; trust?: TrustModel; minConfidence?: number } = {},
): Promise<Measured> {
  const freeText = options.freeText?.length ? { names: options.freeText } : undefined;
  const at = options.minConfidence === undefined ? "" : `@${options.minConfidence}`;
  const args = ["eval", "--suite", suiteFile, "--delegate", `distilled=${modelFile}${at}`, "--json"];
  if (freeText) args.push("--free-text", freeText.names.join(","));
  const report = JSON.parse(execFileSync(process.execPath, [deputy, ...args], { encoding: "utf8" })) as {
    chains: { levels: Measured["level"][] }[];
  };
  const level = report.chains[0]!.levels[0]!;
  const suite = readDecisionSuite(suiteFile);
  const model = loadModelFile(modelFile);
  const minConfidence = options.minConfidence ?? model.recommendedMinConfidence;
  const delegate = new DistilledDelegate({ model, ...(model.encoder ? { encoder } : {}) });
  const answers: ChainAnswer[] = [];
  let score;
  try {
    score = await evaluateChain([{ delegate, minConfidence }], suite.cases, {
      ...(freeText ? { freeText } : {}),
      onProposal: (a) => answers.push(a),
    });
  } finally {
    await delegate.close();
  }
  const own = score.levels[0]!;
  const disagreement =
    own.decided === level.decided && own.correct === level.correct && own.exact === level.exact
      ? ""
      : `in process ${own.decided} decided, ${own.correct} right, ${own.exact} exact; deputy eval ${level.decided}, ${level.correct}, ${level.exact}`;
  const cases = suite.cases.map((c, i) => {
    const a = answers.find((x) => x.item === i)!;
    const eligible = CALL_VERDICTS.has(a.verdict) && a.proposal !== undefined && a.proposal.name !== null;
    const trusted =
      options.trust && eligible ? trustVerdict(a, c.tools, minConfidence, options.trust) : undefined;
    return {
      eligible,
      confidence: a.confidence ?? 0,
      exact: a.correct,
      decided: a.verdict === "accepted",
      ...(options.trust ? { trustDecided: trusted?.accepted ?? false } : {}),
      record: {
        item: i,
        at: c.at,
        facts: c.facts,
        person: c.call,
        proposal: a.proposal ?? null,
        confidence: a.confidence,
        verdict: a.verdict,
        exact: a.correct,
        ...(trusted ? { trustProbability: trusted.probability, trustVerdict: trusted.verdict } : {}),
      },
    };
  });
  return { level, cases, disagreement };
}

/** The accept gate's verdict on an answer's call with the trust model (the node's min_confidence kept as a floor). */
function trustVerdict(
  a: ChainAnswer,
  specs: readonly { name: string; description: string; parameters: unknown }[],
  minConfidence: number,
  trust: TrustModel,
) {
  const gate = acceptGate({
    proposal: {
      name: a.proposal!.name,
      arguments: a.proposal!.arguments ?? {},
      confidence: a.confidence,
      backend: "distilled",
      latencyMs: 0,
    },
    candidates: specs.map((s) => s.name),
    findTool: (name) => {
      const spec = specs.find((s) => s.name === name);
      return spec
        ? ({ ...spec, delegateSafe: true, sensitive: [], run: () => undefined } as unknown as Tool)
        : undefined;
    },
    allowSideEffects: { node: true, host: true },
    minConfidence,
    trust: { model: trust },
  });
  return {
    accepted: gate.verdict === "accepted",
    verdict: gate.verdict,
    probability: gate.trust?.probability ?? null,
  };
}
