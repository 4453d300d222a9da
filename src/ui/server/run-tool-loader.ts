import { resolve } from "node:path";
import type { EscalationTool } from "../../records/escalation.js";
import type { RunRecord } from "../../store/run-state.js";
import type { Tool } from "../../tools/define-tool.js";
import { loadToolsModule } from "../../tools/load-tools-module.js";

/**
 * A candidate tool as the inbox shows it: what the model was offered, with the schema a correction must fit (an
 * escalation's tool, its `sensitive` list always present), and whether it is delegate-safe.
 */
export interface ToolView extends Required<EscalationTool> {
  delegateSafe: boolean;
}

/**
 * Loads the tools of a run: those of the console's own `--tools`, and only those — the module a run's record
 * names is data from the store, never imported (docs/security.md). Modules are imported once per path. (Not
 * authoring's `toolCatalogue`, which describes a registry's tools to a model writing a plan.)
 */
export class RunToolLoader {
  readonly #override: string | undefined;
  readonly #modules = new Map<string, Promise<Tool[]>>();

  constructor(toolsPath?: string) {
    this.#override = toolsPath && resolve(toolsPath);
  }

  /**
   * The tools module a run's calls are checked against and resumed with: the console's `--tools`; `undefined`
   * when it was given none (a resume of a run that had tools is then refused, saying to pass `--tools`).
   */
  pathFor(_run: RunRecord): string | undefined {
    return this.#override;
  }

  /** The named tools of a run's module, in the order asked; unknown names are left out. */
  async tools(run: RunRecord, names: readonly string[]): Promise<ToolView[]> {
    const path = this.pathFor(run);
    if (!path) return [];
    let loading = this.#modules.get(path);
    if (!loading) {
      loading = loadToolsModule(path).then((m) => m.tools);
      this.#modules.set(path, loading);
    }
    let tools: Tool[];
    try {
      tools = await loading;
    } catch {
      this.#modules.delete(path);
      return [];
    }
    return names.flatMap((name) => {
      const tool = tools.find((t) => t.name === name);
      return tool
        ? [
            {
              name: tool.name,
              description: tool.delegateDescription ?? tool.description,
              parameters: tool.parameters,
              delegateSafe: tool.delegateSafe,
              sensitive: tool.sensitive,
            },
          ]
        : [];
    });
  }
}
