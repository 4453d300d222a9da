import { z } from "zod";

/** Node ids: a letter, then letters, digits, `_` or `-`. */
export const NODE_ID = /^[A-Za-z][A-Za-z0-9_-]*$/;

/**
 * Longest timeout a plan may set, in seconds: Node's timers hold at most 2^31−1 ms (about 24.8 days) and fire
 * after 1 ms when given more, so a longer timeout would end the work at once instead of never.
 */
export const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);
const TIMEOUT_MESSAGE = `must be at most ${MAX_TIMEOUT_SECONDS} seconds (about 24 days; Node's timer limit)`;

const retrySchema = z.strictObject({
  max_attempts: z.int().min(1).max(10).default(1),
  backoff_seconds: z.number().min(0).max(60).default(0),
});

const forEachSchema = z.strictObject({
  source: z.string().regex(/^\{artifacts\.[A-Za-z0-9_.\-[\]]+\}$/, "must be exactly `{artifacts.<id>}`"),
  select: z.string().min(1).optional(),
  as: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be an identifier")
    .default("item"),
  max_items: z.int().min(1).default(1000),
  max_concurrency: z.int().min(1).max(64).default(8),
  on_item_error: z.enum(["collect", "fail", "skip"]).default("collect"),
  skip_existing: z.boolean().default(true),
});

/**
 * The fields the engine owns on every node, whatever its type: identity, dependencies, where the result goes,
 * the guard, the fan-out, and the per-dispatch timeout and retry. A node type's own fields are merged after them
 * (see `NodeType.fields`).
 */
export const baseNodeShape = {
  id: z.string().regex(NODE_ID, "must start with a letter and hold only letters, digits, `_` and `-`"),
  depends_on: z.array(z.string()).default([]),
  store_as: z.string().min(1),
  when: z.string().min(1).optional(),
  for_each: forEachSchema.optional(),
  timeout: z.number().positive().max(MAX_TIMEOUT_SECONDS, TIMEOUT_MESSAGE).optional(),
  retry: retrySchema.default({ max_attempts: 1, backoff_seconds: 0 }),
  description: z.string().optional(),
};

export const planMetadataSchema = z.strictObject({
  max_parallel_tasks: z.int().min(1).max(128).default(10),
  execution_timeout: z.number().positive().max(MAX_TIMEOUT_SECONDS, TIMEOUT_MESSAGE).optional(),
  checkpoint: z.boolean().default(true),
});

export const planHeaderSchema = z.strictObject({
  name: z.string().min(1),
  objective: z.string().default(""),
  nodes: z.array(z.unknown()).min(1, "a plan needs at least one node"),
  metadata: planMetadataSchema.default({ max_parallel_tasks: 10, checkpoint: true }),
  /** Declared inputs (a JSON Schema object) when a plan is called like a function (agents' delegations). */
  inputs: z.record(z.string(), z.unknown()).optional(),
  /** The artifact key a plan returns when called like a function. */
  returns: z.string().optional(),
});

/**
 * A parsed node as the engine sees it: the fields it owns (defaults applied) and the name of its type. What else
 * a node holds belongs to its node type (the root entry's `PlanNode` is the union of the built-in ones).
 */
export type BaseNode = z.output<z.ZodObject<typeof baseNodeShape>> & { type: string };
export type ForEach = z.output<typeof forEachSchema>;
export type RetryPolicy = z.output<typeof retrySchema>;
export type PlanMetadata = z.output<typeof planMetadataSchema>;

/** A parsed, structurally valid plan (defaults applied); `N`: the nodes' type (the root entry's `PlanNode`). */
export interface ExecutionPlan<N extends BaseNode = BaseNode> {
  name: string;
  objective: string;
  nodes: N[];
  metadata: PlanMetadata;
  inputs?: Record<string, unknown>;
  returns?: string;
}
