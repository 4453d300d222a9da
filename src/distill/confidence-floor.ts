/**
 * The default floor of a distilled model's recommended `min_confidence`: a call the calibrator itself gives less
 * than 0.8 is never accepted alone, however few wrong calls the rows that chose the threshold showed (see
 * docs/distill.md: with 20–90 such rows, worded more easily than the traffic, the smallest threshold reaching
 * the target fell to ~0.42 and let through 4–5 wrong calls in ~110).
 */
export const DEFAULT_CONFIDENCE_FLOOR = 0.8;
