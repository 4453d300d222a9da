// The shapes the console's API answers with: the server's own types where the client reads them as they are,
// narrower views where it renders their parts (only types cross over: nothing of the server is bundled).
import type { SerializedError } from "../../errors/deputy-error.js";
import type { ItemPage as StoredItemPage } from "../../store/run-store.js";
import type { Escalation } from "../../store/run-state.js";
import type { RunView } from "../server/run-view.js";

export type { Escalation } from "../../store/run-state.js";
export type { NodeView, RunView } from "../server/run-view.js";
export type { ResumeState } from "../server/resume-runner.js";
export type { RepairEntry, RunLineage } from "../server/repair-view.js";

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

export interface ToolView {
  name: string;
  description: string;
  parameters: JsonSchema;
  delegateSafe: boolean;
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  description?: string;
  default?: unknown;
  items?: JsonSchema;
}

export interface InboxEntry {
  runId: string;
  planName: string;
  runStatus: string;
  nodeId: string;
  item?: number;
  verdict: string;
  reason: string;
  proposal?: { name?: string | null; arguments?: Record<string, unknown>; confidence?: number | null };
  createdAt: string;
  resolution?: Resolution;
  instruction: string;
  facts: Record<string, unknown>;
  minConfidence?: number;
  tools: ToolView[];
}

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
