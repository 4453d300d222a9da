/**
 * What an MCP server answers, read into deputy's shapes. Everything here is untrusted input: a server may send
 * any JSON (or none), so each reader checks every field it uses, names what was wrong in one line, and never
 * throws anything but the errors it documents.
 */
import { jsonDepth, MAX_JSON_DEPTH } from "../schema/json-value.js";
import { getOwn } from "../runtime/own.js";

/** The MCP tool annotations deputy reads (hints only: see `trusted` in {@link McpServerOptions}). */
export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** One tool of a `tools/list` answer, as far as deputy reads it. */
export interface McpToolDefinition {
  name: string;
  title?: string;
  description?: string;
  /** As the server sent it; compiled (and refused when it is not JSON Schema) where the tool is made. */
  inputSchema: Record<string, unknown>;
  annotations: McpToolAnnotations;
}

/** A page of `tools/list`: the tools, and the cursor of the next page. */
export interface McpToolPage {
  tools: McpToolDefinition[];
  nextCursor?: string;
}

/** A `tools/list` answer (or one of its tools) that deputy cannot read; `tool` names the tool when known. */
export class McpAnswerError extends Error {
  constructor(
    message: string,
    readonly tool?: string,
  ) {
    super(message);
    this.name = "McpAnswerError";
  }
}

/** The most tools one server may list (all pages): far above any real server, a bound on a looping one. */
export const MAX_MCP_TOOLS = 1000;
/** The longest description or title kept; longer ones are cut (a delegate's prompt pays for every character). */
export const MAX_DESCRIPTION_CHARS = 4000;

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/**
 * Reads one page of a `tools/list` answer. Throws {@link McpAnswerError} for an answer that is not
 * `{ tools: [...] }` or a tool without a usable name or an object input schema; fields deputy does not read
 * (output schemas, icons, `_meta`) are ignored, and annotations that are not booleans are left out.
 */
export function readToolPage(answer: unknown): McpToolPage {
  const tools = getOwn(answer, "tools");
  if (!Array.isArray(tools)) throw new McpAnswerError(`its tools/list answer has no \`tools\` list`);
  const page: McpToolPage = { tools: tools.map((raw, i) => readTool(raw, i)) };
  const cursor = getOwn(answer, "nextCursor");
  if (typeof cursor === "string" && cursor !== "") page.nextCursor = cursor;
  return page;
}

function readTool(raw: unknown, index: number): McpToolDefinition {
  const name = getOwn(raw, "name");
  if (typeof name !== "string" || name === "")
    throw new McpAnswerError(`tool ${index} of its tools/list answer has no name`);
  const shown = name.length > 80 ? `${name.slice(0, 80)}…` : name;
  const schema = getOwn(raw, "inputSchema");
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    throw new McpAnswerError(`tool "${shown}" has an input schema that is not a JSON Schema object`, name);
  if (jsonDepth(schema, MAX_JSON_DEPTH) > MAX_JSON_DEPTH)
    throw new McpAnswerError(
      `tool "${shown}" has an input schema nested more than ${MAX_JSON_DEPTH} levels deep`,
      name,
    );
  const type = getOwn(schema, "type");
  if (type !== "object")
    throw new McpAnswerError(
      `tool "${shown}" has an input schema of type ${JSON.stringify(type) ?? "undefined"}; MCP tools take an object ("type": "object")`,
      name,
    );
  const tool: McpToolDefinition = {
    name,
    inputSchema: schema as Record<string, unknown>,
    annotations: readAnnotations(getOwn(raw, "annotations")),
  };
  const description = text(getOwn(raw, "description"));
  if (description !== undefined) tool.description = description;
  const title = text(getOwn(raw, "title"));
  if (title !== undefined) tool.title = title;
  return tool;
}

function readAnnotations(raw: unknown): McpToolAnnotations {
  const annotations: McpToolAnnotations = {};
  for (const hint of HINTS) {
    const value = getOwn(raw, hint);
    if (typeof value === "boolean") annotations[hint] = value;
  }
  const title = text(getOwn(raw, "title"));
  if (title !== undefined) annotations.title = title;
  return annotations;
}

function text(value: unknown): string | undefined {
  if (typeof value !== "string" || value.trim() === "") return undefined;
  return value.length > MAX_DESCRIPTION_CHARS ? `${value.slice(0, MAX_DESCRIPTION_CHARS)}…` : value;
}

/** A `tools/call` answer read: the tool's value, or the tool's own error (`isError: true`) as one line. */
export type McpCallOutcome =
  | { ok: true; value: unknown }
  | { ok: false; reason: "tool_error" | "invalid_answer" | "too_large"; message: string };

/**
 * Reads a `tools/call` answer. The value is the answer's `structuredContent` when it has one (the machine-readable
 * result), else the text when the content is one text block, else the content blocks as they are. An answer
 * whose JSON is longer than `maxBytes` (UTF-8) is `too_large`, whatever it holds; `isError: true` is
 * `tool_error` with the server's text; anything without a `content` list or `structuredContent` is
 * `invalid_answer`. Never throws.
 */
export function readCallAnswer(answer: unknown, maxBytes: number): McpCallOutcome {
  let size: number;
  try {
    size = Buffer.byteLength(JSON.stringify(answer) ?? "", "utf8");
  } catch {
    return { ok: false, reason: "invalid_answer", message: "its answer is not JSON data" };
  }
  if (size > maxBytes)
    return {
      ok: false,
      reason: "too_large",
      message: `its answer is ${size} bytes, more than the bound of ${maxBytes} (maxResultBytes)`,
    };
  if (typeof answer !== "object" || answer === null || Array.isArray(answer))
    return { ok: false, reason: "invalid_answer", message: "its answer is not an object" };
  const content = getOwn(answer, "content");
  const structured = getOwn(answer, "structuredContent");
  const blocks = Array.isArray(content) ? content : undefined;
  if (getOwn(answer, "isError") === true)
    return { ok: false, reason: "tool_error", message: errorText(blocks) ?? "the tool reported an error" };
  if (structured !== undefined) return { ok: true, value: structured };
  if (!blocks) return { ok: false, reason: "invalid_answer", message: "its answer has no `content` list" };
  if (blocks.length === 1 && getOwn(blocks[0], "type") === "text") {
    const only = getOwn(blocks[0], "text");
    if (typeof only === "string") return { ok: true, value: only };
  }
  return { ok: true, value: blocks };
}

/** The longest error text kept from a server (it reaches manifests and terminals). */
const MAX_ERROR_CHARS = 500;

function errorText(blocks: unknown[] | undefined): string | undefined {
  const texts = (blocks ?? []).flatMap((b) => {
    const t = getOwn(b, "text");
    return getOwn(b, "type") === "text" && typeof t === "string" && t.trim() !== "" ? [t.trim()] : [];
  });
  if (texts.length === 0) return undefined;
  const joined = texts.join(" ").replace(/\s+/g, " ");
  return joined.length > MAX_ERROR_CHARS ? `${joined.slice(0, MAX_ERROR_CHARS)}…` : joined;
}
