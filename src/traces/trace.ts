import type { Proposal } from "../tools/proposal.js";
import type { ToolSpec } from "../tools/tool-spec.js";

/** One proposal hop, as written to a trace sink. Never part of a checkpoint or a manifest. */
export interface DelegateTrace {
  runId: string;
  nodeId: string;
  item?: number;
  instruction: string;
  facts: Record<string, unknown>;
  tools: ToolSpec[];
  proposal: Proposal | null;
  verdict: string;
  finalCall?: { name: string; arguments: Record<string, unknown> };
  backend: string;
  latencyMs: number;
  time: string;
  /** `delegate` for a backend's proposal, `agent` for an escalate_to answer, `person` for a resolution. */
  source?: "delegate" | "agent" | "person";
  error?: { code: string; message: string };
}

/** Where traces go. `write` must never throw into the run (sinks swallow and count their own failures). */
export interface TraceSink {
  write(trace: DelegateTrace): void | Promise<void>;
  close?(): Promise<void>;
}
