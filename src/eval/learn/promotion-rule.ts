/** How a model did on the held-out decisions at its gate threshold: what {@link promotionVerdict} compares. */
export interface HeldOutStanding {
  /** Held-out decisions it was asked. */
  records: number;
  /** Of them, decided at its threshold (the gate accepted the call). */
  decided: number;
  /** Decided calls that were the person's. */
  correct: number;
  /** The lower end of precision's 95 % Wilson interval; null when it decided nothing. */
  wilsonLower: number | null;
}

/** Whether the challenger takes the node's place, and why (one sentence). */
export interface PromotionVerdict {
  promote: boolean;
  reason: string;
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

/**
 * The promotion rule of `deputy learn`: the challenger replaces the champion only when, on the same held-out
 * decisions, (1) it decides something, with a precision at least the target; (2) its Wilson lower bound is at
 * least the champion's (a champion that decides nothing has no bound to beat); (3) it decides a larger share than
 * the champion decides at the target — a champion whose precision is below the target decides no share the team
 * can leave to it, so its share is not one to beat (a confidently wrong champion, e.g. trained on a generic
 * convention the team does not follow, would otherwise block every more precise challenger that decides less).
 * Anything else keeps the champion. With no champion, rules 1 alone decide.
 */
export function promotionVerdict(
  challenger: HeldOutStanding,
  champion: HeldOutStanding | undefined,
  targetPrecision: number,
): PromotionVerdict {
  const keep = (reason: string) => ({ promote: false, reason });
  if (challenger.records === 0) return keep("no held-out decisions to measure on");
  if (challenger.decided === 0 || challenger.wilsonLower === null)
    return keep("the challenger decides none of the held-out decisions at its threshold");
  const precision = challenger.correct / challenger.decided;
  if (precision < targetPrecision)
    return keep(`the challenger's precision ${pct(precision)} is below the target ${pct(targetPrecision)}`);
  const share = challenger.decided / challenger.records;
  if (!champion) return { promote: true, reason: `no champion; the challenger decides ${pct(share)}` };
  const championShare = champion.records > 0 ? champion.decided / champion.records : 0;
  const championPrecision = champion.decided > 0 ? champion.correct / champion.decided : null;
  const belowTarget = championPrecision !== null && championPrecision < targetPrecision;
  if (champion.wilsonLower !== null && challenger.wilsonLower < champion.wilsonLower)
    return keep(
      `the challenger's Wilson lower bound ${pct(challenger.wilsonLower)} is below the champion's ${pct(champion.wilsonLower)}`,
    );
  if (!belowTarget && share <= championShare)
    return keep(`the challenger decides ${pct(share)}, not more than the champion's ${pct(championShare)}`);
  const championDecides = belowTarget
    ? `${pct(championShare)} at a precision of ${pct(championPrecision)}, below the target`
    : pct(championShare);
  return {
    promote: true,
    reason: `the challenger decides ${pct(share)} (champion ${championDecides}) with a Wilson lower bound of ${pct(challenger.wilsonLower)} (champion ${champion.wilsonLower === null ? "none: it decided nothing" : pct(champion.wilsonLower)})`,
  };
}
