// The shapes the console's API answers with (see src/ui/server); kept here so the client builds on its own.

export type Counts = Partial<Record<"ok" | "error" | "skipped" | "escalated", number>>;
export interface Spend {
  calls: number;
  tokens: number;
  cost: number;
  duration: number;
}
export interface ErrorInfo {
  code: string;
  message: string;
}
export interface Escalation {
  nodeId: string;
  item?: number;
  verdict: string;
  reason: string;
  proposal?: unknown;
  createdAt: string;
  resolution?: Resolution;
}
export type Resolution = (
  | { kind: "call"; call: { name: string; arguments: Record<string, unknown> } }
  | { kind: "value"; value: unknown }
  | { kind: "skip" }
) & { by?: string };

export interface NodeView {
  id: string;
  type: "tool" | "delegate" | "agent";
  dependsOn: string[];
  status: string;
  tool?: string;
  tools?: string[];
  description?: string;
  minConfidence?: number;
  attempts: number;
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  error?: ErrorInfo;
  escalation?: Escalation;
  items?: { total?: number; counts: Counts };
  escalated: number;
  spend?: Spend;
  details?: Record<string, unknown>;
}

export interface RunView {
  runId: string;
  planName: string;
  objective?: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  durationMs: number;
  error?: ErrorInfo;
  nodes: NodeView[];
  items: { total: number; counts: Counts };
  escalated: number;
  spend: Spend;
}

export interface ResumeState {
  state: "running" | "done" | "failed";
  status?: string;
  error?: ErrorInfo;
}

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
