import { z } from "zod";
import { InvalidOptionError } from "../errors/invalid-option-error.js";
import type { NodeExecutor } from "./node-executor.js";
import type { NodeType } from "./node-type.js";
import { baseNodeShape } from "./plan-schema.js";

/** Executors by node type name, replacing the registered type's own (`runPlan`'s `executors` option). */
export type ExecutorTable = Readonly<Record<string, NodeExecutor<any>>>;

const TYPE_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/;

// A node type's strict schema, built once per type object (createHost makes a table per run; the schemas stay).
const schemas = new WeakMap<NodeType<any>, z.ZodType>();

/** The strict schema of a node of `type`: the engine's fields, `type`, then the type's own fields. */
export function nodeSchemaOf(type: NodeType<any>): z.ZodType {
  let schema = schemas.get(type);
  if (!schema) {
    const literal = z.literal(type.name);
    schema = z.strictObject({
      ...baseNodeShape,
      type: type.implicit ? literal.default(type.name) : literal,
      ...type.fields,
    });
    schemas.set(type, schema);
  }
  return schema;
}

/**
 * The node types a run (or a validation) knows, by name, each with the executor it runs with: the engine's
 * only view of node types. Built by the composition root (`createHost`); invalid registrations fail at once.
 * `T` is the types it holds, as their TypeScript types: `validatePlan` types a plan written in TypeScript by it.
 */
export class NodeTypeTable<T extends NodeType<any> = NodeType<any>> implements Iterable<T> {
  /** The registered names, in registration order. */
  readonly names: readonly string[];
  /** The name of the type a node without `type` has, if one is registered as `implicit`. */
  readonly implicit: string | undefined;
  // A Map, not a record: `type: "constructor"` must find nothing.
  readonly #types = new Map<string, T>();
  readonly #executors = new Map<string, NodeExecutor<any>>();

  constructor(types: Iterable<T>, executors: ExecutorTable = {}) {
    let implicit: string | undefined;
    for (const type of types) {
      checkType(type);
      if (this.#types.has(type.name)) {
        throw new InvalidOptionError(
          "nodeTypes",
          `node types with unique names ("${type.name}" twice)`,
          type,
        );
      }
      if (type.implicit) {
        if (implicit !== undefined) {
          throw new InvalidOptionError(
            "nodeTypes",
            `at most one implicit node type ("${implicit}" and "${type.name}")`,
            type,
          );
        }
        implicit = type.name;
      }
      this.#types.set(type.name, type);
      this.#executors.set(type.name, type.executor);
    }
    this.names = [...this.#types.keys()];
    this.implicit = implicit;
    for (const [name, executor] of Object.entries(executors)) {
      if (!this.#types.has(name)) {
        throw new InvalidOptionError(
          `executors.${name}`,
          `the name of a registered node type (${this.describeNames()})`,
          name,
        );
      }
      if (typeof executor?.execute !== "function") {
        throw new InvalidOptionError(`executors.${name}`, "a NodeExecutor (with `execute`)", executor);
      }
      this.#executors.set(name, executor);
    }
  }

  /** The type registered as `name` (own names only). */
  get(name: string): T | undefined {
    return this.#types.get(name);
  }

  /** The executor nodes of `name` run with: the type's own, or the one given in `executors`. */
  executorOf(name: string): NodeExecutor<any> | undefined {
    return this.#executors.get(name);
  }

  /** The registered names for a message, in registration order: `"a", "b" or "c"`. */
  describeNames(): string {
    const quoted = this.names.map((n) => JSON.stringify(n));
    if (quoted.length <= 1) return quoted[0] ?? "(none registered)";
    return `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
  }

  [Symbol.iterator](): Iterator<T> {
    return this.#types.values();
  }
}

function checkType(type: NodeType<any>): void {
  if (typeof type !== "object" || type === null) {
    throw new InvalidOptionError("nodeTypes", "a list of NodeType objects", type);
  }
  if (typeof type.name !== "string" || !TYPE_NAME.test(type.name)) {
    throw new InvalidOptionError(
      "nodeTypes[].name",
      "a name that starts with a letter and holds only letters, digits, `_` and `-`",
      type.name,
    );
  }
  if (typeof type.executor?.execute !== "function") {
    throw new InvalidOptionError(
      `nodeTypes.${type.name}.executor`,
      "a NodeExecutor (with `execute`)",
      type.executor,
    );
  }
  if (typeof type.fields !== "object" || type.fields === null) {
    throw new InvalidOptionError(
      `nodeTypes.${type.name}.fields`,
      "a zod shape (field name → schema)",
      type.fields,
    );
  }
  for (const field of Object.keys(type.fields)) {
    if (field === "type" || Object.hasOwn(baseNodeShape, field)) {
      throw new InvalidOptionError(
        `nodeTypes.${type.name}.fields.${field}`,
        "absent: the engine owns that field on every node",
        field,
      );
    }
  }
}
