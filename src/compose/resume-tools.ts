import { RunError } from "../errors/run-error.js";
import { isMcpSpec } from "../mcp/mcp-source-spec.js";
import type { RunOptionsRecord } from "../store/run-options-record.js";
import { lostSecret } from "../store/redact-recorded-spec.js";
import { neutralizeTerminal } from "../traces/terminal-text.js";
import { toolSourcesOf, type RunFlags } from "./run-setup.js";

/**
 * The tool sources a run record names (`toolSources`, else the one `tools` module), as written: data to compare
 * and show, never to load without being asked (see {@link toolsForResume}).
 */
export function recordedToolSources(meta: RunOptionsRecord): string[] {
  return meta.toolSources ?? (meta.tools ? [meta.tools] : []);
}

/** What a resume loads its tools from, and whether that is the record's list (to announce first). */
export type ResumeTools =
  { recorded: false; sources: string[] } | { recorded: true; sources: string[]; announcement: string };

/**
 * The tool sources a resume may load: the ones the resuming host was given (`tools`), else — only when asked
 * with `recordedTools` — the record's, with the text that says what they import and start. A store is data: a
 * run whose record names tools, resumed with neither, is refused (`RESUME_INVALID`) with the flags to pass, so
 * that whoever can write the store cannot make a host import a module or start a command.
 */
export function toolsForResume(
  runId: string,
  meta: RunOptionsRecord,
  given: { tools?: RunFlags["tools"]; recordedTools?: boolean },
): ResumeTools {
  const own = toolSourcesOf(given.tools);
  if (own.length > 0) return { recorded: false, sources: own };
  const recorded = recordedToolSources(meta);
  if (recorded.length === 0) return { recorded: false, sources: [] };
  if (given.recordedTools && recorded.some(lostSecret))
    throw new RunError(
      "RESUME_INVALID",
      `Run ${runId}'s record keeps its tool sources without their secrets (shown as ***): pass the same --tools again.`,
      { runId },
    );
  if (given.recordedTools)
    return { recorded: true, sources: recorded, announcement: announce(recorded, meta) };
  throw new RunError(
    "RESUME_INVALID",
    `Run ${runId} was started with ${recorded.length === 1 ? "a tool source" : `${recorded.length} tool sources`}; a resume loads only the tools it is given: pass the same --tools again (or --recorded-tools to load what the run's record names, shown first).`,
    { runId },
  );
}

/** One line per source: the modules imported, the commands started (with the directory), the servers reached. */
function announce(sources: readonly string[], meta: RunOptionsRecord): string {
  const lines = sources.map((source) => {
    if (!isMcpSpec(source)) return `  import module ${source}`;
    if (source.includes(":stdio:"))
      return `  start command ${source.slice(source.indexOf(":stdio:") + ":stdio:".length)}${meta.cwd ? ` (in ${meta.cwd})` : ""}`;
    return `  connect to MCP server ${source}`;
  });
  return neutralizeTerminal(
    `deputy: --recorded-tools: loading the tool sources the run's record names:\n${lines.join("\n")}\n`,
  );
}
