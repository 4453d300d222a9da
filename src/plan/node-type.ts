import type { z } from "zod";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { Spend } from "../store/run-state.js";
import type { ExecutionHost, NodeExecutor, ValidationContext } from "./node-executor.js";
import type { BaseNode } from "./plan-schema.js";

/** A field of a node that holds templates: its path (for issues) and its value as written in the plan. */
export type TemplatedField = readonly [path: string, value: unknown];

/**
 * A node of type `Name` with the own fields `Fields` (a zod shape), as parsed: what a node type's executor and
 * checks receive. The engine's fields (`id`, `depends_on`, `store_as`, …) come with every node.
 */
export type NodeOf<Name extends string, Fields extends z.ZodRawShape> = Omit<BaseNode, "type"> &
  Omit<z.output<z.ZodObject<Fields>>, "type"> & { type: Name };

/**
 * How a model may write one field of a node (a repair's replacement node, a model-written plan), beyond leaving
 * it as it was. Each breach is an issue with the rule's `code`.
 * - `never`: the field may not be set to anything but its `default` (a model may never turn it on).
 * - `rises`: a number that may rise, never fall or be left out once set; in a model-written plan it is at least
 *   the host's confidence floor (`floorCode` when below it; a left-out one is set to the floor).
 */
export type FieldRule =
  | { readonly rule: "never"; readonly code: string; readonly default: unknown }
  | { readonly rule: "rises"; readonly code: string; readonly floorCode: string };

/**
 * What a model may write in a node of a type (see {@link NodeType.modelWrites}): the node type owns these rules,
 * so authoring and repair name none of its fields.
 */
export interface ModelWrites {
  /**
   * Whether a repair may replace a failed node of this type. Default `true`; `false` keeps the type's nodes as
   * they ran (a repair that names one is `not_eligible`).
   */
  readonly repairable?: boolean;
  /** The fields a repair may change freely (the engine's and the type's own). Any other is `protected_field`. */
  readonly free: readonly string[];
  /** Fields with a rule of their own, checked in a repair and in a model-written plan alike. */
  readonly rules?: Readonly<Record<string, FieldRule>>;
  /** Fields that name registered tools (a name, or a list of names): each must be in the allowlist. */
  readonly toolFields?: readonly string[];
  /** Object fields a repair's diff lists key by key (`args.q`), as the engine's `retry`. */
  readonly nested?: readonly string[];
  /**
   * Whether the tools its `toolFields` name are called through a gate of the type's own (the delegate's accept
   * gate and side-effect double key). Default `false`: the node calls them as written, so a model-written plan
   * whose node names a tool that is not delegate-safe waits for a person's approval before it runs.
   */
  readonly gated?: boolean;
}

/** What the console shows for a node beside its record (see {@link NodeType.consoleView}). */
export interface NodeConsoleView {
  /**
   * The bar its proposals' confidence is judged against: drawn on the trace viewer's confidence histogram,
   * labelled with the field's name as the plan writes it.
   */
  threshold?: { label: string; value: number };
}

/**
 * One kind of plan node, as the engine knows it: the engine owns scheduling, `when`, `for_each`, checkpoints and
 * statuses; everything a node of this type holds or does besides is here. The root entry registers the built-in
 * ones (`tool`, `delegate`, `agent`); `runPlan(plan, { nodeTypes: [myType] })` adds one (see
 * {@link defineNodeType}).
 */
export interface NodeType<N extends BaseNode = BaseNode> {
  /** The node's `type` in plan JSON. */
  readonly name: N["type"];
  /**
   * The type's own fields (a zod shape), merged after the engine's (`baseNodeShape`) into one strict object:
   * an unknown field is an error. They must not redefine an engine field or `type`.
   */
  readonly fields: z.ZodRawShape;
  /** The type of a node that says no `type` (the seed format's `tool`). At most one registered type. */
  readonly implicit?: boolean;
  /**
   * The fields that hold templates (`{artifacts.x}`, `{item}`, …), checked like `store_as`: every artifact they
   * read must be stored by a node they depend on. Default: none.
   */
  templated?(node: N): readonly TemplatedField[];
  /**
   * The registered tools a node of this type calls, by name (a tool node's `tool`, a delegate node's `tools`):
   * their definitions are kept with the run, and a resume whose tools define one of them otherwise is refused.
   * Default: none.
   */
  tools?(node: N): readonly string[];
  /** The type's own checks (tools exist, a backend is configured, …), reported with every other issue. */
  validate?(node: N, ctx: ValidationContext): PlanIssue[];
  /** Runs the type's nodes (and, prepared, their for_each items). */
  readonly executor: NodeExecutor<N>;
  /**
   * The host fields the executor and checks read (besides `tools`, which every host has). A host composed
   * without one of them (an engine host made by hand) fails validation with `missing_capability`.
   */
  readonly capabilities?: readonly Extract<keyof ExecutionHost, string>[];
  /**
   * The record a unit (a node, or one for_each item) of this type keeps: the shape of its outcome's `details`,
   * stored with it and shown in the manifest. Every detail an executor reports must parse with it (the node type
   * conformance suite checks it). Default: no details are described.
   */
  readonly details?: z.ZodType;
  /**
   * What one unit spent, read from its stored details: the manifest sums it per node (calls, tokens, cost,
   * duration). Default: nothing is spent.
   */
  spend?(details: Record<string, unknown>): Partial<Spend> | undefined;
  /**
   * What a model may write in a node of this type: which fields a repair may change and how, which it may
   * never set, and which name tools (see {@link ModelWrites}). Default: a repair replaces no node of this type,
   * and a model-written plan's nodes of it are checked by validation alone.
   */
  readonly modelWrites?: ModelWrites;
  /**
   * What the console shows for a node, read from its definition as the plan writes it (raw JSON, untrusted:
   * nothing rendered). Default: nothing besides its record.
   */
  consoleView?(definition: Readonly<Record<string, unknown>>): NodeConsoleView;
}

/** What {@link defineNodeType} takes: a {@link NodeType} whose node is typed from its `fields`. */
export interface NodeTypeSpec<
  Name extends string,
  Fields extends z.ZodRawShape,
  Implicit extends boolean = false,
> extends Omit<NodeType<NodeOf<Name, Fields>>, "name" | "fields" | "implicit"> {
  name: Name;
  fields: Fields;
  implicit?: Implicit;
}

/**
 * What {@link defineNodeType} gives: a {@link NodeType} that keeps its name, its fields' schema and whether it is
 * implicit in its type, so a plan written in TypeScript can be typed from it (`PlanInput`, the `plan()` builder)
 * without a second description of the same fields.
 */
export interface DefinedNodeType<
  Name extends string,
  Fields extends z.ZodRawShape,
  Implicit extends boolean = false,
> extends Omit<NodeType<NodeOf<Name, Fields>>, "name" | "fields" | "implicit"> {
  readonly name: Name;
  readonly fields: Fields;
  readonly implicit?: Implicit;
}

/**
 * Defines a node type whose nodes are typed from their fields' schema: `execute(node)` sees `node.seconds` as a
 * number when `fields` says `seconds: z.number()`, and a plan's author writes `seconds` as a number (see
 * `PlanInput` and `plan()` in the root entry).
 *
 * @example
 * const waitNodeType = defineNodeType({
 *   name: "wait",
 *   fields: { seconds: z.number().min(0).max(60) },
 *   executor: {
 *     async execute(node, unit) {
 *       await sleep(node.seconds * 1000, unit.signal);
 *       return { status: "ok", value: { waited: node.seconds } };
 *     },
 *   },
 * });
 * await runPlan(plan, { tools, nodeTypes: [waitNodeType] });
 */
export function defineNodeType<
  const Name extends string,
  Fields extends z.ZodRawShape,
  const Implicit extends boolean = false,
>(spec: NodeTypeSpec<Name, Fields, Implicit>): DefinedNodeType<Name, Fields, Implicit> {
  // (The spec is the node type: `name`, `fields` and `implicit` are only typed more narrowly.)
  return spec as unknown as DefinedNodeType<Name, Fields, Implicit>;
}
