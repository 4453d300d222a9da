import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
} from "node:fs";
import { dirname } from "node:path";
import { fileSha256Sync } from "../../distill/file-sha256.js";
import { saveModelFile } from "../../distill/model-file.js";
import type { TrustFittedFor } from "../../distill/trust-model.js";
import { saveTrustModel } from "../../distill/trust-model-file.js";
import type { CurvePoint, LearnResult, MeasuredModel } from "./learn-node.js";

/** The files of a node's model, all beside the model file. */
export interface NodeFiles {
  model: string;
  /** The previous model, kept when a challenger replaces it. */
  previous: string;
  trust: string;
  previousTrust: string;
  /** One line per `deputy learn`: what was compared, the verdict and, when promoted, what trained the model. */
  history: string;
}

/** `triage.model.json` → `triage.model.prev.json`, `triage.model.trust.json`, `triage.model.learn.jsonl`. */
export function nodeFiles(model: string, trust?: string): NodeFiles {
  const base = model.endsWith(".json") ? model.slice(0, -".json".length) : model;
  const trustFile = trust ?? `${base}.trust.json`;
  const trustBase = trustFile.endsWith(".json") ? trustFile.slice(0, -".json".length) : trustFile;
  return {
    model,
    previous: `${base}.prev.json`,
    trust: trustFile,
    previousTrust: `${trustBase}.prev.json`,
    history: `${base}.learn.jsonl`,
  };
}

/** One line of a node's learning history (`*.learn.jsonl`). */
export interface LearnHistoryEntry {
  at: string;
  node: string;
  promoted: boolean;
  reason: string;
  seed: number;
  targetPrecision: number;
  counts: LearnResult["counts"];
  challenger: Omit<MeasuredModel, "records"> | null;
  champion: Omit<MeasuredModel, "records"> | null;
  curve: CurvePoint[];
  /**
   * The pretrained encoder every model of the turn was trained with (`deputy learn --encoder`): its name and the
   * sha256 of its file, which the model file records too and checks when it is loaded.
   */
  encoder?: { name: string; sha256: string };
  /** sha256 of the model file written (promoted only). */
  modelSha256?: string;
  /** Content keys of the inputs the promoted model trained on (promoted only). */
  trainedOn?: string[];
}

/** sha256 of a node's file (the model written, the one a trust file was fitted for). */
export const fileSha256 = fileSha256Sync;

/** The history's lines that parse as entries, oldest first; a broken line is skipped (the file is only a record). */
export function readLearnHistory(path: string): LearnHistoryEntry[] {
  if (!existsSync(path)) return [];
  const entries: LearnHistoryEntry[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    if (!line.trim()) continue;
    try {
      const v = JSON.parse(line) as LearnHistoryEntry;
      if (typeof v === "object" && v !== null && typeof v.promoted === "boolean" && typeof v.at === "string")
        entries.push(v);
    } catch {
      // skipped
    }
  }
  return entries;
}

/**
 * What the node's current model trained on: the `trainedOn` of the last promotion that wrote exactly this file
 * (same sha256). Undefined when the file was written otherwise (`deputy distill`, by hand): then nothing is known.
 */
export function championTrainedOn(files: NodeFiles): Set<string> | undefined {
  if (!existsSync(files.model)) return undefined;
  const sha = fileSha256(files.model);
  const entry = readLearnHistory(files.history)
    .reverse()
    .find((e) => e.promoted && e.modelSha256 === sha && Array.isArray(e.trainedOn));
  return entry ? new Set(entry.trainedOn!.filter((k) => typeof k === "string")) : undefined;
}

/** Writes a file whole or not at all: a temporary file beside it, then a rename. */
function atomicWrite(path: string, write: (tmp: string) => void): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  write(tmp);
  renameSync(tmp, path);
}

/**
 * Applies a learning turn: on a promotion the current model (and trust file) move to `*.prev.json` and the
 * challenger's take their place, each written atomically, the trust file recording the model file's sha256
 * (`fittedFor`); a trust model the challenger could not fit leaves no
 * trust file (the old one belonged to the old model). Either way one history line is appended. Without a
 * promotion the model files are not touched.
 */
export function applyLearnResult(result: LearnResult, files: NodeFiles, at: Date): LearnHistoryEntry {
  const strip = (m: MeasuredModel | undefined) => {
    if (!m) return null;
    const { records: _records, ...rest } = m;
    return rest;
  };
  const entry: LearnHistoryEntry = {
    at: at.toISOString(),
    node: result.node,
    promoted: result.verdict.promote,
    reason: result.verdict.reason,
    seed: result.seed,
    targetPrecision: result.targetPrecision,
    counts: result.counts,
    challenger: strip(result.challenger?.measured),
    champion: strip(result.champion?.measured),
    curve: result.curve,
    ...(result.encoder ? { encoder: { name: result.encoder.name, sha256: result.encoder.sha256 } } : {}),
  };
  if (result.verdict.promote && result.challenger) {
    const { model, trust } = result.challenger;
    if (existsSync(files.model)) atomicWrite(files.previous, (tmp) => copyFileSync(files.model, tmp));
    if (existsSync(files.trust)) atomicWrite(files.previousTrust, (tmp) => copyFileSync(files.trust, tmp));
    atomicWrite(files.model, (tmp) => saveModelFile(tmp, model));
    entry.modelSha256 = fileSha256(files.model);
    // The trust file names the model it was fitted for: a level given another model refuses it.
    const fittedFor: TrustFittedFor = {
      kind: "distilled",
      spec: `distilled=${files.model}`,
      file: files.model,
      sha256: entry.modelSha256,
    };
    if (trust.status === "fitted")
      atomicWrite(files.trust, (tmp) => saveTrustModel(tmp, { ...trust.model, fittedFor }));
    else if (existsSync(files.trust)) unlinkSync(files.trust); // kept as previousTrust above
    entry.trainedOn = result.trainedOn;
  }
  mkdirSync(dirname(files.history), { recursive: true });
  appendFileSync(files.history, JSON.stringify(entry) + "\n");
  return entry;
}
