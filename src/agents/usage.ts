import type { LanguageModelV4Usage } from "@ai-sdk/provider";

/** Token usage of one or more model calls, flattened. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

/** Zero usage. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}

/** Adds `b` to `a` (returns a new object). */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}

/**
 * Reads a provider's usage: the nested shape of the v4 and v3 specifications, `{ inputTokens: { total }, outputTokens: { total } }`
 * and the flat numbers of the v2 shape (and of providers that report them that way). Unknown counts are 0.
 */
export function normalizeUsage(usage: LanguageModelV4Usage | Record<string, unknown> | undefined): Usage {
  if (!usage || typeof usage !== "object") return emptyUsage();
  const read = (value: unknown): number => {
    if (typeof value === "number" && Number.isFinite(value)) return value;
    if (value && typeof value === "object") {
      const total = (value as { total?: unknown }).total;
      if (typeof total === "number" && Number.isFinite(total)) return total;
    }
    return 0;
  };
  const record = usage as Record<string, unknown>;
  const inputTokens = read(record.inputTokens);
  const outputTokens = read(record.outputTokens);
  const reported = typeof record.totalTokens === "number" ? record.totalTokens : undefined;
  return { inputTokens, outputTokens, totalTokens: reported ?? inputTokens + outputTokens };
}
