/** A parsed function call. */
export interface ParsedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

const BLOCK = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;

/**
 * Parses Qwen/Hermes-style function-calling output as BFCL's handler for such models does: each
 * `<tool_call>…</tool_call>` block (a final unclosed one included) must hold JSON `{"name": string,
 * "arguments": object}` (`arguments` may also be a JSON-encoded string); text outside the blocks is ignored, and
 * no block means no call. A block that is not such JSON makes the whole answer unparseable.
 */
export function parseToolCalls(
  text: string,
): { ok: true; calls: ParsedToolCall[] } | { ok: false; error: string } {
  const calls: ParsedToolCall[] = [];
  for (const match of text.matchAll(BLOCK)) {
    const body = match[1]!.trim();
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return { ok: false, error: `tool call is not JSON: ${body.slice(0, 80)}` };
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return { ok: false, error: "tool call is not an object" };
    }
    const { name } = value as { name?: unknown };
    let args = (value as { arguments?: unknown }).arguments ?? {};
    if (typeof args === "string") {
      try {
        args = JSON.parse(args);
      } catch {
        return { ok: false, error: "tool call arguments are not JSON" };
      }
    }
    if (typeof name !== "string" || typeof args !== "object" || args === null || Array.isArray(args)) {
      return { ok: false, error: "tool call lacks a name or an arguments object" };
    }
    calls.push({ name, arguments: args as Record<string, unknown> });
  }
  return { ok: true, calls };
}
