import { existsSync } from "node:fs";
import { toolSpec } from "../../delegate/delegate-unit.js";
import { resolvedEscalationTraces, type ResolvedEscalations } from "../../distill/resolved-escalations.js";
import type { ToolSpec } from "../../delegate/protocol.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { SqliteRunStore } from "../../store/sqlite-run-store.js";
import { loadToolsModule } from "../../tools/load-tools-module.js";

/** What `deputy distill --store` read. */
export type StoreSummary = ResolvedEscalations;

/**
 * The resolved escalations of one node in a run store, as traces; tool specs from `--tools` or each run's own
 * tools module (a run whose module is gone still counts, its traces carry no specs).
 */
export async function storeTraces(path: string, node: string, tools?: string): Promise<StoreSummary> {
  if (!existsSync(path)) throw new InvalidOptionError("--store", "an existing run store (SQLite file)", path);
  const modules = new Map<string, Promise<ToolSpec[] | undefined>>();
  const specsOf = (module: string) => {
    let specs = modules.get(module);
    if (!specs) {
      specs = loadToolsModule(module).then(
        (m) => m.tools.map(toolSpec),
        () => undefined,
      );
      modules.set(module, specs);
    }
    return specs;
  };
  const store = new SqliteRunStore(path);
  try {
    return await resolvedEscalationTraces(store, node, async (run) => {
      const module = tools ?? run.options.tools;
      return module ? specsOf(module) : undefined;
    });
  } finally {
    await store.close();
  }
}
