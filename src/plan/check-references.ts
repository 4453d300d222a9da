import type { PlanIssue } from "../errors/plan-validation-error.js";
import { didYouMean } from "../tools/did-you-mean.js";
import { planIssue as issue } from "./plan-issue.js";
import type { TemplatedField } from "./node-type.js";
import type { BaseNode } from "./plan-schema.js";
import { compileTemplate, placeholdersIn, type Placeholder } from "../runtime/template.js";
import { RESERVED_KEYS } from "../runtime/own.js";

// What templates and store_as keys refer to: which node stores which artifact, whether a node depends on the
// node whose artifact it reads, and placeholders that cannot work where they are.

/** Which node stores which artifact key: static keys by name, templated ones by pattern. */
export interface Producers {
  byKey: Map<string, string>;
  patterns: { nodeId: string; pattern: RegExp }[];
}

/** Finds which node stores which key, reporting bad, reserved, duplicate and per-item-less `store_as` keys. */
export function storeAsProducers(nodes: BaseNode[], issues: PlanIssue[]): Producers {
  const patterns: Producers["patterns"] = [];
  const staticKeys = new Map<string, string>();
  for (const node of nodes) {
    const c = compileTemplate(node.store_as);
    const parts = c.kind === "literal" ? [] : c.kind === "whole" ? [c.ref] : c.parts;
    const alias = node.for_each?.as;
    if (
      node.for_each &&
      !parts.some((p) => typeof p !== "string" && (p.root === "index" || p.root === alias))
    ) {
      issues.push(
        issue(
          "store_as_not_per_item",
          `store_as under for_each must contain {index} or an item field (e.g. {${alias}.id}), else items overwrite each other`,
          node.id,
          "store_as",
        ),
      );
    }
    if (c.kind === "literal") {
      if (RESERVED_KEYS.has(node.store_as)) {
        issues.push(
          issue(
            "invalid_store_as",
            `store_as "${node.store_as}" is reserved (it names the prototype of every object)`,
            node.id,
            "store_as",
          ),
        );
      } else if (!/^[A-Za-z0-9_-]+$/.test(node.store_as)) {
        issues.push(
          issue(
            "invalid_store_as",
            `store_as "${node.store_as}" may hold only letters, digits, _ and - (besides placeholders)`,
            node.id,
            "store_as",
          ),
        );
      }
      const other = staticKeys.get(node.store_as);
      if (other)
        issues.push(
          issue(
            "duplicate_store_as",
            `store_as "${node.store_as}" is also used by node "${other}"`,
            node.id,
            "store_as",
          ),
        );
      else staticKeys.set(node.store_as, node.id);
    } else {
      const source = parts.map((p) => (typeof p === "string" ? escape(p) : "[^.]+")).join("");
      patterns.push({ nodeId: node.id, pattern: new RegExp(`^${source}$`) });
    }
  }
  return { byKey: staticKeys, patterns };
}

/** True when `ancestor` is reachable from `nodeId` through depends_on (direct dependencies first). */
function dependsOn(byId: Map<string, BaseNode>, nodeId: string, ancestor: string): boolean {
  const direct = byId.get(nodeId)?.depends_on ?? [];
  if (direct.includes(ancestor)) return true;
  const seen = new Set<string>();
  const stack = [...direct];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === ancestor) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(byId.get(id)?.depends_on ?? []));
  }
  return false;
}

/** The engine's templated fields, then those the node's type declares (`NodeType.templated`). */
function templatedFields(node: BaseNode, own: readonly TemplatedField[]): TemplatedField[] {
  const fields: TemplatedField[] = [["store_as", node.store_as]];
  if (node.for_each) fields.push(["for_each.source", node.for_each.source]);
  fields.push(...own);
  return fields;
}

/**
 * Checks every placeholder of a node's templated fields: artifacts stored by a node it depends on (or known
 * before the run), `{item}`/`{index}` only under for_each, `{inputs.x}` only in a plan that declares inputs.
 */
export function checkTemplates(
  node: BaseNode,
  own: readonly TemplatedField[],
  producers: Producers,
  byId: Map<string, BaseNode>,
  known: Set<string>,
  hasInputs: boolean,
  issues: PlanIssue[],
) {
  const alias = node.for_each?.as;
  for (const [path, value] of templatedFields(node, own)) {
    for (const ref of placeholdersIn(value)) {
      if (ref.root === "artifacts") checkArtifactRef(node, ref, path, producers, byId, known, issues);
      else if ((ref.root === "index" || ref.root === alias) && node.for_each && path !== "for_each.source")
        continue;
      else if (ref.root === "inputs" && hasInputs) continue;
      else if (ref.root === "item" || ref.root === "index" || (alias !== undefined && ref.root === alias)) {
        const message = !node.for_each
          ? `${ref.text} needs a for_each on this node`
          : ref.root === "item" && alias !== "item"
            ? `${ref.text}: this node's for_each alias is "${alias}"`
            : `${ref.text} is not available in ${path}`;
        issues.push(issue("invalid_placeholder", message, node.id, path));
      } else {
        issues.push(
          issue(
            "unknown_placeholder",
            `${ref.text} is not a placeholder deputy knows; it is kept as literal text`,
            node.id,
            path,
            "warning",
          ),
        );
      }
    }
  }
}

function checkArtifactRef(
  node: BaseNode,
  ref: Placeholder,
  path: string,
  producers: Producers,
  byId: Map<string, BaseNode>,
  known: Set<string>,
  issues: PlanIssue[],
) {
  const first = ref.steps[0];
  if (!first || !("key" in first)) {
    issues.push(issue("invalid_placeholder", `${ref.text} must name an artifact`, node.id, path));
    return;
  }
  if (known.has(first.key)) return;
  const exact = producers.byKey.get(first.key);
  const matches = exact
    ? [exact]
    : producers.patterns.filter((p) => p.pattern.test(first.key)).map((p) => p.nodeId);
  if (matches.length === 0) {
    const hint = didYouMean(first.key, producers.byKey.keys());
    issues.push(
      issue(
        "unknown_artifact",
        `${ref.text}: no node stores "${first.key}"${hint ? ` (did you mean "${hint}"?)` : ""}`,
        node.id,
        path,
      ),
    );
    return;
  }
  if (!matches.some((p) => dependsOn(byId, node.id, p))) {
    const producer = matches[0]!;
    issues.push(
      issue(
        producer === node.id ? "self_reference" : "missing_dependency",
        producer === node.id
          ? `${ref.text} refers to this node's own output`
          : `${ref.text} is stored by node "${producer}", which is not in depends_on`,
        node.id,
        path,
      ),
    );
  }
}

/**
 * The plan's `returns` (the artifact a caller of the plan gets: a delegation, an MCP tool) must name a key a node
 * stores, or one known before the run, exactly like an `{artifacts.x}` reference.
 */
export function checkReturns(
  returns: unknown,
  producers: Producers,
  known: Set<string>,
  issues: PlanIssue[],
) {
  if (typeof returns !== "string" || returns === "" || known.has(returns)) return;
  if (producers.byKey.has(returns) || producers.patterns.some((p) => p.pattern.test(returns))) return;
  const hint = didYouMean(returns, producers.byKey.keys());
  issues.push(
    issue(
      "unknown_returns",
      `returns "${returns}": no node stores "${returns}"${hint ? ` (did you mean "${hint}"?)` : ""}`,
      undefined,
      "returns",
    ),
  );
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
