import { z } from "zod";
import type { Spend } from "../records/spend.js";

/**
 * The one zod schema of a {@link Spend} (calls, tokens, USD and seconds), as a node type's `details` keep it:
 * strict (an unknown key is an error); `z.object(spendSchema.shape)` reads the same fields and drops others.
 */
export const spendSchema = z.strictObject({
  calls: z.number(),
  tokens: z.number(),
  cost: z.number(),
  duration: z.number(),
}) satisfies z.ZodType<Spend>;
