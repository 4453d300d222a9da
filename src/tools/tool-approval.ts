import type { Tool, ToolContext } from "./define-tool.js";

/** The call's run context less the attempt (approval is asked once, before the first attempt). */
export type ApprovalContext = Omit<ToolContext, "attempt">;

/**
 * Why this call of `tool` waits for a person's approval, or `undefined` when it does not: the plan's node asks for
 * it (`required`, a tool node's `require_approval`), or the tool's own `needsApproval` (deputy's `defineTool`, an
 * AI SDK tool's, or `true` for a tool a trusted MCP server annotates `destructiveHint: true`) says so — the
 * function form is asked with the call's arguments. A plan can add an approval, never waive the tool's. A
 * `needsApproval` function that throws counts as "needs approval" (a check that failed approves nothing).
 */
export async function approvalReason(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: ApprovalContext,
  required = false,
): Promise<string | undefined> {
  if (required) return `the plan's node requires approval before it calls "${tool.name}"`;
  const rule = tool.needsApproval;
  if (rule === undefined || rule === false) return undefined;
  if (rule === true) {
    return tool.annotations?.destructiveHint === true
      ? `"${tool.name}" is marked destructive by its trusted MCP server (destructiveHint)`
      : `"${tool.name}" requires approval before every call (needsApproval)`;
  }
  try {
    const needed = await rule(args, { ...ctx, attempt: 1 });
    return needed === true
      ? `"${tool.name}" requires approval for these arguments (needsApproval)`
      : undefined;
  } catch (error) {
    return `"${tool.name}"'s needsApproval check failed (${(error as Error)?.message ?? String(error)}), so the call waits for a person`;
  }
}

/** True when a tool's calls may need approval (a rule other than `false`): such calls are checked one by one. */
export function mayNeedApproval(tool: Tool, required = false): boolean {
  return required || (tool.needsApproval !== undefined && tool.needsApproval !== false);
}

/**
 * True when the call about to run is the one a person approved. The stored call is what they were shown: when
 * nothing in it was redacted it must equal the call now, key for key; a call shown with redacted values is
 * compared on its tool only (the person approved a call whose hidden values they were not meant to see, and the
 * run renders those from its own stored data).
 */
export function isApprovedCall(
  shown: { name: string; arguments: Record<string, unknown> } | undefined,
  now: { name: string; arguments: Record<string, unknown> },
  redacted: string,
): boolean {
  if (!shown || shown.name !== now.name) return false;
  const text = JSON.stringify(shown.arguments);
  return text.includes(redacted) || sameJson(shown.arguments, now.arguments);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k) =>
      Object.hasOwn(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}
