// The shapes the console's API answers with: the server's own types where the client reads them as they are,
// narrower views where it renders their parts (only types cross over: nothing of the server is bundled).
import type { ProposedCall } from "../../delegate/host-capabilities.js";
import type { SerializedError } from "../../errors/deputy-error.js";
import type { ItemPage as StoredItemPage } from "../../store/run-store.js";
import type { Escalation } from "../../store/run-state.js";
import type { InboxEntry as ServerInboxEntry } from "../server/inbox-view.js";
import type { RunView } from "../server/run-view.js";
import type { ToolView as ServerToolView } from "../server/run-tool-loader.js";

export type { Escalation } from "../../store/run-state.js";
export type { NodeView, RunView } from "../server/run-view.js";
export type { ResumeState } from "../server/resume-runner.js";
export type { RepairEntry, RunLineage } from "../server/repair-view.js";
export type { RunOrigin, RepairDelta, RepairSummary } from "../../authoring/run-origin.js";

export type ErrorInfo = SerializedError;
export type Counts = StoredItemPage["counts"];
export type Resolution = NonNullable<Escalation["resolution"]>;

export type RunRow = Omit<RunView, "nodes"> & {
  nodeCounts: { total: number; byStatus: Record<string, number> };
};
export interface ItemPage {
  total: number;
  counts: Counts;
  items: {
    record: {
      index: number;
      status: string;
      key?: string;
      error?: ErrorInfo;
      escalation?: Escalation;
      details?: Record<string, unknown>;
    };
    value?: string;
  }[];
}

/** A candidate tool as the console lists it, its parameters read as the JSON Schema the forms render. */
export type ToolView = Omit<ServerToolView, "parameters"> & { parameters: JsonSchema };

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  description?: string;
  default?: unknown;
  items?: JsonSchema;
}

/** An inbox entry as the client reads it: its proposal as a call, its tools' parameters as JSON Schema. */
export type InboxEntry = Omit<ServerInboxEntry, "proposal" | "tools"> & {
  proposal?: Partial<ProposedCall>;
  tools: ToolView[];
};

export interface Hop {
  runId: string;
  nodeId: string;
  item?: number;
  verdict: string;
  backend: string;
  source?: string;
  latencyMs: number;
  time: string;
  instruction: string;
  proposal: { name: string | null; arguments: unknown; confidence: number | null } | null;
  finalCall?: { name: string; arguments: unknown };
  error?: ErrorInfo;
}

export interface TraceView {
  available: boolean;
  total?: number;
  traces?: Hop[];
  verdicts?: string[];
  backends?: string[];
  histogram?: { bins: number[]; unscored: number };
}
