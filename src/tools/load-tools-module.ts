import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { DeputyError } from "../errors/deputy-error.js";
import { InputFileError } from "../errors/input-file-error.js";
import { ToolError } from "../errors/tool-error.js";
import type { Tool } from "./define-tool.js";
import { toTools, type ToolsInput } from "./to-tools.js";

/** What a tools module for the CLI provides. Later parts (agents, delegates) read more exports from it. */
export interface ToolsModule {
  tools: Tool[];
  /** The module's exports, for the parts of deputy that read other names (`agents`, …). */
  exports: Record<string, unknown>;
  path: string;
}

/**
 * Imports an ES module (`.js`, `.mjs` or `.ts`) exporting its tools as `default` or as `tools` — an array of
 * tools, or an object of tools by name (an AI SDK `ToolSet` fits; its keys name its tools): see {@link toTools}.
 */
export async function loadToolsModule(path: string): Promise<ToolsModule> {
  const absolute = resolve(path);
  if (!existsSync(absolute)) {
    // A URL is not a file: an MCP server over HTTP is written with `mcp+` in front.
    const url = /^(https?):\/\//i.exec(path);
    const hint = url
      ? ` (an MCP server over HTTP is written mcp+${url[1]!.toLowerCase()}://…: --tools mcp+${path})`
      : "";
    throw new InputFileError("TOOLS_MODULE_NOT_FOUND", `Tools module not found: ${path}${hint}`);
  }
  let mod: Record<string, unknown>;
  try {
    mod = await importSettled(absolute, path);
  } catch (cause) {
    if (DeputyError.isInstance(cause)) throw cause;
    throw new InputFileError(
      "TOOLS_MODULE_INVALID",
      `Could not import tools module ${path}: ${(cause as Error).message}`,
      { cause },
    );
  }
  // Node ≥ 23 gives a CommonJS module a "module.exports" export; its `exports.tools` would look like one tool.
  if ("module.exports" in mod || /\.c[jt]s$/.test(absolute)) {
    throw new InputFileError(
      "TOOLS_MODULE_INVALID",
      `Tools module ${path} is CommonJS; deputy loads ES modules (write \`export const tools = [...]\` in a .mjs file).`,
    );
  }
  const raw = mod.tools ?? mod.default;
  if (raw === undefined) {
    throw new InputFileError(
      "TOOLS_MODULE_INVALID",
      `Tools module ${path} exports no tools: export them as \`tools\` or as the default export.`,
    );
  }
  if (typeof raw !== "object" || raw === null) {
    throw new InputFileError(
      "TOOLS_MODULE_INVALID",
      `Tools module ${path}: \`tools\` must be an array or an object.`,
    );
  }
  try {
    const tools = toTools(raw as ToolsInput);
    const seen = new Set<string>();
    for (const tool of tools) {
      if (seen.has(tool.name))
        throw new ToolError("TOOL_DUPLICATE", tool.name, `two tools are named "${tool.name}".`);
      seen.add(tool.name);
    }
    return { tools, exports: mod, path: absolute };
  } catch (cause) {
    throw new InputFileError("TOOLS_MODULE_INVALID", `Tools module ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
}

/** How long a tools module may take to load (its top-level `await`s included). */
const LOAD_TIMEOUT_MS = 30_000;

/**
 * Imports the module, failing clearly when its evaluation never settles: a top-level `await` on a promise that
 * nothing will resolve otherwise leaves the import pending until Node exits with code 13 and a warning.
 */
async function importSettled(absolute: string, path: string): Promise<Record<string, unknown>> {
  const importing = /\.[cm]?ts$/.test(absolute)
    ? importTypeScript(absolute)
    : import(pathToFileURL(absolute).href);
  let onIdle: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    const fail = (why: string) =>
      reject(
        new InputFileError(
          "TOOLS_MODULE_INVALID",
          `Tools module ${path} never finished loading (${why}; a top-level await that never settles?).`,
        ),
      );
    // The event loop ran dry while the import was pending: nothing can settle it any more.
    onIdle = () => fail("nothing left to wait for");
    process.once("beforeExit", onIdle);
    timer = setTimeout(() => fail(`still loading after ${LOAD_TIMEOUT_MS / 1000}s`), LOAD_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return (await Promise.race([importing, stuck])) as Record<string, unknown>;
  } finally {
    clearTimeout(timer);
    if (onIdle) process.removeListener("beforeExit", onIdle);
  }
}

/** What Node's own type stripping cannot load, where `tsx` (when installed) can. */
const NEEDS_TSX = new Set([
  "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX", // enums, namespaces, parameter properties
  "ERR_MODULE_NOT_FOUND", // `import "./x.js"` meaning x.ts, as tsc lets one write
  "ERR_UNKNOWN_FILE_EXTENSION", // type stripping turned off (--no-experimental-strip-types)
]);

/**
 * Imports a TypeScript tools module with Node's built-in type stripping (on by default from Node 22.18; about
 * 200 ms for a small module here, where tsx took 720-740 ms). Only what stripping cannot load goes to `tsx`, an
 * optional peer dependency: resolution and syntax fail before any of the module runs, so nothing runs twice.
 */
async function importTypeScript(absolute: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(absolute).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined || !NEEDS_TSX.has(code)) throw error;
    let tsx: typeof import("tsx/esm/api");
    try {
      tsx = await import("tsx/esm/api");
    } catch {
      throw new InputFileError(
        "TOOLS_MODULE_INVALID",
        `Could not import tools module ${absolute}: ${(error as Error).message} (Node's type stripping loads erasable TypeScript with .ts imports; for the rest, install tsx).`,
        { cause: error },
      );
    }
    return (await tsx.tsImport(url, import.meta.url)) as Record<string, unknown>;
  }
}
