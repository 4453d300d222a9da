import { createHash } from "node:crypto";
import { RunError } from "../errors/run-error.js";
import { canonicalJson } from "../runtime/canonical-json.js";
import type { ToolDefinitionDigest } from "../store/run-options-record.js";
import type { Tool } from "../tools/define-tool.js";
import type { ExecutionHost } from "./node-executor.js";
import type { NodeTypeTable } from "./node-type-table.js";
import type { BaseNode, ExecutionPlan } from "./plan-schema.js";

/**
 * The tools a run depends on, kept with it: a plan is validated against its tools' definitions (names,
 * argument schemas, side-effect policy), and a resume days later may load other ones — a tools module edited,
 * an MCP server upgraded. Every tool source is compared the same way, by the digest of each part.
 */

const PART_NAMES: Record<keyof ToolDefinitionDigest, string> = {
  description: "description",
  input: "input schema",
  annotations: "annotations",
};

function digest(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex").slice(0, 16);
}

/** One tool's definition as digests, part by part. */
export function toolDefinitionDigest(tool: Tool): ToolDefinitionDigest {
  return {
    description: digest([tool.description, tool.delegateDescription ?? null]),
    input: digest(tool.parameters),
    // Whether calls wait for approval is policy too; left out when unset, so older runs' digests still match.
    annotations: digest(
      tool.needsApproval === undefined
        ? [tool.annotations ?? null, tool.delegateSafe]
        : [tool.annotations ?? null, tool.delegateSafe, { needsApproval: typeof tool.needsApproval }],
    ),
  };
}

/** The names of the registered tools the plan's nodes call (each node type says, with `NodeType.tools`). */
export function toolsUsedBy(plan: ExecutionPlan, nodeTypes: NodeTypeTable): string[] {
  const names = new Set<string>();
  for (const node of plan.nodes as BaseNode[]) {
    const type = nodeTypes.get(node.type ?? nodeTypes.implicit ?? "");
    for (const name of type?.tools?.(node) ?? []) names.add(name);
  }
  return [...names].sort();
}

/** The digests of the tools the plan uses, as the host defines them now (a tool it lacks is left out). */
export function toolDefinitionsOf(
  plan: ExecutionPlan,
  host: ExecutionHost,
  nodeTypes: NodeTypeTable,
): Record<string, ToolDefinitionDigest> {
  const digests: Record<string, ToolDefinitionDigest> = {};
  for (const name of toolsUsedBy(plan, nodeTypes)) {
    const tool = host.tools.find(name);
    if (tool) Object.defineProperty(digests, name, { value: toolDefinitionDigest(tool), enumerable: true });
  }
  return digests;
}

/**
 * Refuses a resume whose tools define a tool the plan uses otherwise than when the run started (`TOOLS_CHANGED`),
 * naming each tool and what changed. A run recorded before definitions were kept is not checked.
 */
export function checkToolDefinitions(
  runId: string,
  stored: Record<string, ToolDefinitionDigest> | undefined,
  now: Record<string, ToolDefinitionDigest>,
): void {
  if (!stored) return;
  const changes: string[] = [];
  for (const [name, before] of Object.entries(stored)) {
    const after = Object.hasOwn(now, name) ? now[name] : undefined;
    if (!after) continue; // a tool that is gone fails validation, with a did-you-mean
    const parts = (Object.keys(PART_NAMES) as (keyof ToolDefinitionDigest)[]).filter(
      (part) => before[part] !== after[part],
    );
    if (parts.length) changes.push(`"${name}" (its ${parts.map((p) => PART_NAMES[p]).join(", ")})`);
  }
  if (changes.length === 0) return;
  throw new RunError(
    "TOOLS_CHANGED",
    `The tools changed since run ${runId} started: ${changes.join("; ")} ${changes.length === 1 ? "differs" : "differ"} from the definition the plan was validated against; start a new run, or resume with the tools it started with.`,
    { runId },
  );
}
