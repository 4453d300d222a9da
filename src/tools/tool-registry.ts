import { ToolError } from "../errors/tool-error.js";
import { didYouMean } from "./did-you-mean.js";
import { toTool, type Tool } from "./define-tool.js";
import { toTools, type ToolsInput } from "./to-tools.js";

/** The tools a plan, a delegate or an agent may call, by name (the seed's "ToolManager"). */
export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();

  /** @param tools a list of tools, or a record by name (an AI SDK `ToolSet` fits): see {@link ToolsInput}. */
  constructor(tools: ToolsInput = []) {
    for (const tool of toTools(tools)) this.register(tool);
  }

  /** Adds a tool (a {@link Tool}, a definition or a plain object). A second tool of the same name is an error. */
  register(tool: unknown): Tool {
    const normalised = toTool(tool);
    if (this.#tools.has(normalised.name)) {
      throw new ToolError(
        "TOOL_DUPLICATE",
        normalised.name,
        `A tool named "${normalised.name}" is already registered.`,
      );
    }
    this.#tools.set(normalised.name, normalised);
    return normalised;
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The tool, or `undefined`. */
  find(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  /** The tool; throws `TOOL_NOT_FOUND` naming the closest registered name. */
  get(name: string): Tool {
    const tool = this.#tools.get(name);
    if (tool) return tool;
    const hint = this.suggest(name);
    throw new ToolError(
      "TOOL_NOT_FOUND",
      name,
      `Unknown tool "${name}".${hint ? ` Did you mean "${hint}"?` : ""} Registered: ${this.names().join(", ") || "(none)"}.`,
    );
  }

  /** The registered name closest to `name`, when one is a plausible typo. */
  suggest(name: string): string | undefined {
    return didYouMean(name, this.#tools.keys());
  }

  /**
   * What to say after `unknown tool "name"`: a plausible typo's fix, else the tools there are (the first ten),
   * so a plan written against an MCP server's tools shows what the server has.
   */
  unknownHint(name: string): string {
    const hint = this.suggest(name);
    if (hint !== undefined) return ` (did you mean "${hint}"?)`;
    const names = this.names();
    if (names.length === 0) return " (no tools were given)";
    const shown = names.slice(0, 10).map((n) => `"${n}"`);
    return ` (the tools given: ${shown.join(", ")}${names.length > 10 ? ` and ${names.length - 10} more` : ""})`;
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  list(): Tool[] {
    return [...this.#tools.values()];
  }
}
