import { statSync } from "node:fs";
import { DistilledModelError } from "../errors/distilled-model-error.js";
import { redactText } from "../runtime/redact-value.js";
import { fileSha256 } from "./file-sha256.js";
import type { TrustFittedFor } from "./trust-model.js";

/** A spec as its kind reads it (`DelegateSpecRegistry.resolve`): the kind and the main part of its value. */
export interface TrustTarget {
  kind: string;
  main: string;
}

/**
 * The record a trust file keeps of the level it was fitted for: the backend kind, the spec as given (secrets
 * redacted, without its `trust=` option) and, when the spec's main part is a file (a distilled model, a GGUF,
 * a scripted backend's answers), that file and its sha256.
 */
export async function trustFittedFor(target: TrustTarget, spec: string): Promise<TrustFittedFor> {
  const file = isFile(target.main) ? target.main : undefined;
  return {
    kind: target.kind,
    spec: redactText(spec.replace(/,trust=[^,]*/g, "")),
    ...(file ? { file, sha256: await fileSha256(file) } : {}),
  };
}

/**
 * Refuses a trust file fitted for another model: when it records a file's sha256 and the level's spec names a
 * file with another, a {@link DistilledModelError} (`DISTILLED_TRUST_MISMATCH`) naming both files. A file without
 * the record (written before it), or a level without a file (a server URL), is not checked.
 */
export async function checkTrustFittedFor(
  trustFile: string,
  fittedFor: TrustFittedFor | undefined,
  target: TrustTarget,
): Promise<void> {
  if (fittedFor?.sha256 === undefined || !isFile(target.main)) return;
  const sha256 = await fileSha256(target.main);
  if (sha256 === fittedFor.sha256) return;
  const short = (sha: string) => `sha256 ${sha.slice(0, 12)}…`;
  throw new DistilledModelError(
    trustFile,
    [
      `it was fitted for ${fittedFor.file ?? fittedFor.spec} (${short(fittedFor.sha256)}), not for ${target.main} (${short(sha256)}): fit it for this model (deputy learn, deputy eval --trust-out) or go without (trust=false)`,
    ],
    { code: "DISTILLED_TRUST_MISMATCH" },
  );
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
