import { existsSync } from "node:fs";
import { toolSpec } from "../../delegate/delegate-unit.js";
import { resolvedEscalationTraces, type ResolvedEscalations } from "../../distill/resolved-escalations.js";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { SqliteRunStore } from "../../store/sqlite-run-store.js";
import { loadToolsModule } from "../../tools/load-tools-module.js";

/** What `deputy distill --store` read. */
export type StoreSummary = ResolvedEscalations;

/**
 * The resolved escalations of one node in a run store, as traces, with the input and tool specs each escalation
 * recorded; with `--tools`, that module's specs replace recorded ones of the same name.
 */
export async function storeTraces(path: string, node: string, tools?: string): Promise<StoreSummary> {
  if (!existsSync(path)) throw new InvalidOptionError("--store", "an existing run store (SQLite file)", path);
  const specs = tools
    ? loadToolsModule(tools).then(
        (m) => m.tools.map(toolSpec),
        () => undefined,
      )
    : undefined;
  const store = new SqliteRunStore(path);
  try {
    return await resolvedEscalationTraces(store, node, specs && (() => specs));
  } finally {
    await store.close();
  }
}
