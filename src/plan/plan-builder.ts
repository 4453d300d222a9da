import { InvalidOptionError } from "../errors/invalid-option-error.js";
import type { NodeType } from "./node-type.js";
import type { NodeInputOf, PlanHeaderInput, PlanInputOf } from "./plan-input.js";

// Omit over each member of a union (the built-in `Omit` keeps only the keys all members share).
type OmitEach<T, K extends PropertyKey> = T extends unknown
  ? { [P in keyof T as P extends K ? never : P]: T[P] }
  : never;

/** The fields of a node of the type named `Name` among `T`, as a builder method takes them: all but `id` and `type`. */
export type NodeFieldsOf<T extends NodeType<any>, Name extends string> = OmitEach<
  NodeInputOf<Extract<T, { readonly name: Name }>>,
  "id" | "type"
>;

/** The builder's own methods: no node type gets a method of these names (add its nodes with `node`). */
const OWN_METHODS = ["node", "build", "then"] as const;
type OwnMethod = (typeof OWN_METHODS)[number];

/** One method per node type, named after it: `.tool(id, fields)`, `.delegate(id, fields)`, … */
export type NodeMethods<T extends NodeType<any>> = {
  readonly [Name in T["name"] as Name extends OwnMethod ? never : Name]: (
    id: string,
    fields: NodeFieldsOf<T, Name>,
  ) => PlanBuilderOf<T>;
};

/** A {@link PlanBuilder} with a method per node type (what `plan()` gives). */
export type PlanBuilderOf<T extends NodeType<any>> = PlanBuilder<T> & NodeMethods<T>;

/**
 * Writes a plan in TypeScript, node by node, for the node types `T`: each call checks its node's fields against
 * the type's schema at compile time (a misspelt field is an error) and gives a new builder, so a common start can
 * be shared; {@link PlanBuilder.build} gives exactly the JSON a plan file holds. It checks nothing else: the plan
 * is validated where it runs, with the same issues as the same plan read from a file.
 *
 * The root entry's `plan(name)` makes one for the built-in node types (and yours); from here, give the types:
 * `PlanBuilder.create([toolNodeType, waitNodeType], "name")`.
 */
export class PlanBuilder<T extends NodeType<any>> {
  readonly #header: PlanHeaderInput;
  readonly #nodes: readonly object[];
  readonly #types: readonly T[];

  private constructor(types: readonly T[], header: PlanHeaderInput, nodes: readonly object[]) {
    this.#types = types;
    this.#header = header;
    this.#nodes = nodes;
    for (const type of types) {
      const name: unknown = type?.name;
      if (typeof name !== "string" || (OWN_METHODS as readonly string[]).includes(name)) continue;
      Object.defineProperty(this, name, {
        value: (id: string, fields: object) => this.node(name, id, fields as never),
        enumerable: false,
      });
    }
  }

  /**
   * A builder for a plan named `name` (with its `objective`, `metadata`, `inputs`, `returns` if given) whose nodes
   * are of the types `nodeTypes`.
   */
  static create<T extends NodeType<any>>(
    nodeTypes: readonly T[],
    name: string,
    header: Omit<PlanHeaderInput, "name"> = {},
  ): PlanBuilderOf<T> {
    if (!Array.isArray(nodeTypes))
      throw new InvalidOptionError("nodeTypes", "a list of node types", nodeTypes);
    if (typeof header !== "object" || header === null || Array.isArray(header))
      throw new InvalidOptionError(
        "plan options",
        "an object (objective, metadata, inputs, returns)",
        header,
      );
    return new PlanBuilder(nodeTypes, { name, ...header }, []) as PlanBuilderOf<T>;
  }

  /**
   * Adds a node of the type named `type` (for a type whose name is not a method name, or is one of the builder's
   * own): `.node("wait", "pause", { seconds: 5, store_as: "paused" })`.
   */
  node<Name extends T["name"] & string>(
    type: Name,
    id: string,
    fields: NodeFieldsOf<T, Name>,
  ): PlanBuilderOf<T> {
    if (typeof fields !== "object" || fields === null || Array.isArray(fields))
      throw new InvalidOptionError(
        `fields of node ${JSON.stringify(id)}`,
        "an object of the node's fields",
        fields,
      );
    for (const own of ["id", "type"])
      if (Object.hasOwn(fields, own))
        throw new InvalidOptionError(
          `fields.${own} of node ${JSON.stringify(id)}`,
          "absent: the node's id and type are the builder's arguments",
          (fields as Record<string, unknown>)[own],
        );
    // The implicit type (`tool`) is written as plan files write it: without `type`.
    const implicit = this.#types.find((t) => t?.name === type)?.implicit === true;
    const node = { id, ...(implicit ? {} : { type }), ...fields };
    return new PlanBuilder(this.#types, this.#header, [...this.#nodes, node]) as PlanBuilderOf<T>;
  }

  /**
   * The plan as JSON values, as `JSON.parse` of the same plan's file gives it: `name`, the header fields given,
   * then `nodes` in the order they were added (fields left `undefined` are not there).
   */
  build(): PlanInputOf<T> {
    return JSON.parse(JSON.stringify({ ...this.#header, nodes: this.#nodes })) as PlanInputOf<T>;
  }
}
