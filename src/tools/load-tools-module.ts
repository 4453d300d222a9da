import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { InputFileError } from "../errors/input-file-error.js";
import { toTool, type Tool } from "./define-tool.js";

/** What a tools module for the CLI provides. Later parts (agents, delegates) read more exports from it. */
export interface ToolsModule {
  tools: Tool[];
  /** The module's exports, for the parts of deputy that read other names (`agents`, …). */
  exports: Record<string, unknown>;
  path: string;
}

/**
 * Imports an ES module (`.js`, `.mjs` or `.ts`) exporting its tools as `default` or as `tools` — an array or an
 * object of tools, each a {@link Tool} or a plain object of the same shape.
 */
export async function loadToolsModule(path: string): Promise<ToolsModule> {
  const absolute = resolve(path);
  if (!existsSync(absolute))
    throw new InputFileError("TOOLS_MODULE_NOT_FOUND", `Tools module not found: ${path}`);
  let mod: Record<string, unknown>;
  try {
    if (/\.[cm]?ts$/.test(absolute)) {
      const { tsImport } = await import("tsx/esm/api");
      mod = (await tsImport(pathToFileURL(absolute).href, import.meta.url)) as Record<string, unknown>;
    } else {
      mod = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
    }
  } catch (cause) {
    throw new InputFileError(
      "TOOLS_MODULE_INVALID",
      `Could not import tools module ${path}: ${(cause as Error).message}`,
      { cause },
    );
  }
  const raw = mod.tools ?? mod.default;
  if (raw === undefined) {
    throw new InputFileError(
      "TOOLS_MODULE_INVALID",
      `Tools module ${path} exports no tools: export them as \`tools\` or as the default export.`,
    );
  }
  const list = Array.isArray(raw) ? raw : typeof raw === "object" && raw !== null ? Object.values(raw) : null;
  if (!list) {
    throw new InputFileError(
      "TOOLS_MODULE_INVALID",
      `Tools module ${path}: \`tools\` must be an array or an object.`,
    );
  }
  try {
    return { tools: list.map((t) => toTool(t)), exports: mod, path: absolute };
  } catch (cause) {
    throw new InputFileError("TOOLS_MODULE_INVALID", `Tools module ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
}
