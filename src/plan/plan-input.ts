import type { z } from "zod";
import type { DefinedNodeType, NodeType } from "./node-type.js";
import type { baseNodeShape, planHeaderSchema } from "./plan-schema.js";

// Flattens an intersection so that an editor shows one object of fields, not `A & B & C`.
type Flat<T> = { [K in keyof T]: T[K] } & {};

/**
 * The engine's fields of a node as a plan's author writes them (`z.input` of the schema that parses them, so the
 * two cannot drift): `id` and `store_as`; `depends_on`, `when`, `for_each`, `timeout`, `retry` and `description`
 * optional, defaults as in `docs/plan-format.md`.
 */
export type BaseNodeInput = z.input<z.ZodObject<typeof baseNodeShape>>;

/** A plan's `metadata` as written: every field optional (`max_parallel_tasks` = 10, `checkpoint` = true). */
export type PlanMetadataInput = NonNullable<z.input<typeof planHeaderSchema>["metadata"]>;

/** A plan's fields besides its nodes, as written: `name`; `objective`, `metadata`, `inputs`, `returns` optional. */
export type PlanHeaderInput = Flat<Omit<z.input<typeof planHeaderSchema>, "nodes">>;

// One node type's node: distributes over a union of types.
type EachNodeInput<T extends NodeType<any>> =
  T extends DefinedNodeType<infer Name, infer Fields, infer Implicit>
    ? Flat<
        BaseNodeInput &
          (true extends Implicit ? { type?: Name } : { type: Name }) &
          Omit<z.input<z.ZodObject<Fields>>, keyof BaseNodeInput | "type">
      >
    : Flat<BaseNodeInput & { type: string; [field: string]: unknown }>;

type KeysOfEach<U> = U extends unknown ? keyof U : never;

// A node of the implicit type may leave out `type`, so TypeScript cannot tell it from the others by `type`; the
// other types' fields are marked absent on it, so that one of them on a node without `type` is an error too.
type Exclusive<U, All = U> = U extends { type: string }
  ? U
  : Flat<U & { [K in Exclude<KeysOfEach<All>, keyof U>]?: never }>;

/**
 * A node of one node type, as written in a plan: the engine's fields ({@link BaseNodeInput}), `type` (optional
 * for the implicit type, `tool`), and the type's own fields from its schema (defaults optional). Distributes over
 * a union of node types, which gives a union discriminated by `type`. A node type made with `defineNodeType`
 * carries its fields in its type; one typed only as `NodeType` gives a node of any fields.
 */
export type NodeInputOf<T extends NodeType<any>> = Exclusive<EachNodeInput<T>>;

/**
 * A plan as its author writes it, for the node types `T` (the root entry's `PlanInput` is this for the built-in
 * types and yours): what a plan file holds, with every default optional. The engine's `ExecutionPlan` is the
 * same plan parsed, defaults filled in.
 */
export type PlanInputOf<T extends NodeType<any>> = Flat<PlanHeaderInput & { nodes: NodeInputOf<T>[] }>;

// A node whose type says nothing of its kind or fields: `object`, a record, or one whose `type` is any string.
type UntypedNode<N> = unknown extends N
  ? true
  : object extends N
    ? true
    : string extends keyof N
      ? true
      : N extends { type: infer T }
        ? string extends T
          ? true
          : false
        : false;

/**
 * A plan whose type says nothing checkable: accepted where its type is `unknown` or `any` (a parsed file, a
 * model's answer), `object`, a record of unknown fields, or a plan whose nodes are untyped (`object[]`, records, or a
 * `type` widened to `string`, as in a plan built in a variable without `satisfies PlanInput`). Any other value must
 * be a plan input. So the entries that take a typed plan also take JSON read at run time, which they validate
 * anyway, while a misspelt field in a plan written in TypeScript stays a compile error (an overload taking
 * `unknown` alone would accept it).
 */
export type UntypedPlan<P> = unknown extends P
  ? P
  : object extends P
    ? P
    : string extends keyof P
      ? P
      : P extends { readonly nodes: readonly (infer N)[] }
        ? true extends UntypedNode<N>
          ? P
          : never
        : never;
