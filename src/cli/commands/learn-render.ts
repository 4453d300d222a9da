import type { CurvePoint, LearnResult, MeasuredModel } from "../../eval/learn/learn-node.js";
import type { LearnHistoryEntry, NodeFiles } from "../../eval/learn/node-files.js";

const pct = (v: number | null | undefined) =>
  v === null || v === undefined ? "-" : `${(v * 100).toFixed(1)}%`;
const WIDTH = 40;

/** A bar of `share` (0–1) in eighths of a character, `width` characters long at 1. */
export function bar(share: number, width = WIDTH): string {
  const eighths = Math.round(Math.min(1, Math.max(0, share)) * width * 8);
  const partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8]!;
  return ("█".repeat(Math.floor(eighths / 8)) + partial).padEnd(width, " ");
}

/**
 * The curve as text: one bar per point, the team's decisions trained on → the share of the held-out decisions
 * decided at the target, with precision; the champion's share last, for comparison.
 */
export function curvePlot(curve: readonly CurvePoint[], champion?: MeasuredModel): string[] {
  const labels = [...curve.map((p) => String(p.decisions)), ...(champion ? ["champion"] : [])];
  const w = Math.max(9, ...labels.map((l) => l.length));
  const line = (label: string, share: number, precision: number | null, lower: number | null) =>
    `${label.padStart(w)} │${bar(share)}│ ${pct(share).padStart(6)}  precision ${pct(precision)}${lower === null ? "" : ` (Wilson ≥ ${pct(lower)})`}`;
  return [
    ...curve.map((p) => line(String(p.decisions), p.share, p.precision, p.wilsonLower)),
    ...(champion ? [line("champion", champion.share, champion.precision, champion.wilsonLower)] : []),
    `${"".padStart(w)} └${"─".repeat(WIDTH)}┘ share decided`,
  ];
}

function row(name: string, m: MeasuredModel): string {
  return [
    name.padEnd(12),
    (m.trustThreshold === undefined
      ? m.minConfidence.toFixed(3)
      : `trust p≥${m.trustThreshold.toFixed(3)}`
    ).padEnd(16),
    String(m.records).padEnd(10),
    String(m.decided).padEnd(9),
    pct(m.share).padEnd(7),
    pct(m.precision).padEnd(11),
    (m.wilsonLower === null ? "-" : `[${pct(m.wilsonLower)}, ${pct(m.wilsonUpper)}]`).padEnd(17),
    pct(m.exactAccuracy),
  ].join("");
}

/** The terminal report of `deputy learn`. */
export function renderLearn(
  result: LearnResult,
  files: NodeFiles,
  entry: LearnHistoryEntry | undefined,
  seconds: number,
): string {
  const c = result.counts;
  const lines = [
    `node "${result.node}": ${c.decisions} decision(s) of the team — ${c.train} trained on, ${c.heldOut} held out${c.championSaw ? ` (${c.championSaw} more held out the champion trained on: left out)` : ""}${c.traces ? `; plus ${c.traces} trace(s) trained on` : ""}; seed ${result.seed}, ${seconds.toFixed(1)} s`,
    ...(result.encoder
      ? [
          `encoder ${result.encoder.name} (${result.encoder.dimension} dimensions, sha256 ${result.encoder.sha256.slice(0, 12)}…)`,
        ]
      : []),
  ];
  if (result.champion && !result.champion.trainedOnKnown)
    lines.push(
      `the champion's training decisions are not recorded (not written by deputy learn): some held-out decisions may be ones it trained on, which can only flatter it`,
    );
  lines.push(
    "",
    "model       min_confidence  held out  decided  share  precision  95% Wilson       exact",
    ...(result.champion
      ? [row("champion", result.champion.measured)]
      : ["champion    none (no model file yet)"]),
    ...(result.challenger ? [row("challenger", result.challenger.measured)] : ["challenger  none"]),
  );
  if (result.curve.length > 0)
    lines.push(
      "",
      `the team's decisions trained on → share of the ${c.heldOut} held-out decisions decided (threshold for ${pct(result.targetPrecision)})`,
      ...curvePlot(result.curve, result.champion?.measured),
    );
  const trust = result.challenger?.trust;
  if (trust)
    lines.push(
      "",
      trust.status === "fitted"
        ? `trust: threshold ${trust.model.threshold.toFixed(3)} supported out of fold on ${trust.model.decisions} decisions (${pct(trust.model.outOfFold.coverage)} at ${pct(trust.model.outOfFold.precision)}, Wilson ≥ ${pct(trust.model.outOfFold.wilsonLower)})`
        : `trust: not fitted — ${trust.reason}${trust.needed ? `; needs about ${trust.needed} decisions` : ""}`,
    );
  lines.push("");
  if (result.verdict.promote) {
    lines.push(`promote: ${result.verdict.reason}`);
    if (entry?.promoted)
      lines.push(
        `wrote ${files.model}${result.champion ? ` (the previous kept as ${files.previous})` : ""}${trust?.status === "fitted" ? ` and ${files.trust}` : ""}; history ${files.history}`,
      );
    else lines.push("--dry-run: nothing written");
  } else {
    lines.push(`keep the champion: ${result.verdict.reason}`);
    lines.push(entry ? `model files unchanged; history ${files.history}` : "--dry-run: nothing written");
  }
  return lines.join("\n") + "\n";
}

/** The machine-readable result of `deputy learn` (the models themselves are in the files). */
export function learnJson(
  result: LearnResult,
  files: NodeFiles,
  entry: LearnHistoryEntry | undefined,
  seconds: number,
) {
  const trust = result.challenger?.trust;
  return {
    node: result.node,
    targetPrecision: result.targetPrecision,
    seed: result.seed,
    encoder: result.encoder ?? null,
    seconds: Number(seconds.toFixed(3)),
    counts: result.counts,
    champion: result.champion
      ? { ...result.champion.measured, trainedOnKnown: result.champion.trainedOnKnown }
      : null,
    challenger: result.challenger?.measured ?? null,
    trust: trust
      ? trust.status === "fitted"
        ? { status: trust.status, threshold: trust.model.threshold, outOfFold: trust.model.outOfFold }
        : { status: trust.status, reason: trust.reason, needed: trust.needed }
      : null,
    curve: result.curve,
    promoted: result.verdict.promote,
    reason: result.verdict.reason,
    written: entry?.promoted ? { model: files.model, previous: files.previous, trust: files.trust } : null,
    history: entry ? files.history : null,
  };
}
