import type { ItemRecord } from "../../store/run-state.js";
import { applySelectPath, parseSelectPath } from "../../runtime/select-path.js";
import { renderString, type TemplateScope } from "../../runtime/template.js";

/** A plan node as stored with its run (raw JSON: the fields the console reads, all optional). */
export interface RawPlanNode {
  id: string;
  type?: "tool" | "delegate" | "agent";
  depends_on?: string[];
  description?: string;
  tool?: string;
  tools?: string[];
  agent?: string;
  instruction?: string;
  facts?: Record<string, unknown>;
  min_confidence?: number;
  on_reject?: string;
  allow_side_effects?: boolean;
  store_as?: string;
  for_each?: { source: string; select?: string; as?: string };
}

/** The nodes of a run's stored plan, in plan order. */
export function planNodes(plan: unknown): RawPlanNode[] {
  const nodes = (plan as { nodes?: unknown } | null)?.nodes;
  return Array.isArray(nodes)
    ? nodes.filter((n): n is RawPlanNode => typeof (n as RawPlanNode)?.id === "string")
    : [];
}

/**
 * The list a for_each node fans out over, from the run's node-level artifacts; `undefined` when it cannot be
 * rebuilt (the source is not stored yet, or the select path does not fit).
 */
export function forEachList(node: RawPlanNode, artifacts: Record<string, unknown>): unknown[] | undefined {
  const fe = node.for_each;
  if (!fe) return undefined;
  try {
    const source = renderString(fe.source, { artifacts });
    const list = fe.select ? applySelectPath(source, parseSelectPath(fe.select)) : source;
    return Array.isArray(list) ? list : undefined;
  } catch {
    return undefined;
  }
}

/** The template scope of a node, or of one of its items (`list`: the node's for_each list, when already built). */
export function scopeOf(
  node: RawPlanNode,
  artifacts: Record<string, unknown>,
  item?: number,
  list?: unknown[],
): TemplateScope {
  if (item === undefined || !node.for_each) return { artifacts };
  const items = list ?? forEachList(node, artifacts);
  return { artifacts, alias: node.for_each.as ?? "item", item: items?.[item], index: item };
}

/** The delegate's instruction and facts as the model saw them (rendered again from the stored run). */
export function renderedInput(
  node: RawPlanNode,
  artifacts: Record<string, unknown>,
  item?: number,
  list?: unknown[],
): { instruction: string; facts: Record<string, unknown> } {
  const scope = scopeOf(node, artifacts, item, list);
  const render = (value: unknown): unknown => {
    if (typeof value === "string") {
      try {
        return renderString(value, scope);
      } catch {
        return value;
      }
    }
    if (Array.isArray(value)) return value.map(render);
    if (typeof value === "object" && value !== null)
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v)]));
    return value;
  };
  const instruction = render(node.instruction ?? "");
  return {
    instruction: typeof instruction === "string" ? instruction : JSON.stringify(instruction),
    facts: render(node.facts ?? {}) as Record<string, unknown>,
  };
}

/** Item statuses in display order. */
export const ITEM_STATUSES: ItemRecord["status"][] = ["ok", "error", "skipped", "escalated"];
