import { logit } from "../confidence/calibrator.js";

/** The names of {@link calibrationInputs}, as a distilled model file stores them. */
export const CALIBRATION_INPUTS = ["callLogit", "knownMass", "unknownMass", "knownShare"];

/**
 * What a distilled model's calibrator reads: the logit of the whole call's probability (tool × every argument),
 * and the familiarity of the instruction — log(1 + known mass), log(1 + unknown mass) and the known share.
 */
export function calibrationInputs(callProbability: number, known: number, unknown: number): number[] {
  return [logit(callProbability), Math.log1p(known), Math.log1p(unknown), known / (known + unknown + 1)];
}
