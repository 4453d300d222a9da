// The shapes the console's API answers with: the server's own types where the client reads them as they are,
// narrower views where it renders their parts (only types cross over: nothing of the server is bundled).
import type { SerializedError } from "../../errors/deputy-error.js";
import type { ProposedCall } from "../../records/hop.js";
import type { ItemPage as StoredItemPage } from "../../store/run-store.js";
import type { ItemRecord } from "../../store/run-state.js";
import type { InboxEntry as ServerInboxEntry } from "../server/inbox-view.js";
import type { RunView } from "../server/run-view.js";
import type { ToolView as ServerToolView } from "../server/run-tool-loader.js";
import type { TraceView as ServerTraceView } from "../server/trace-view.js";

export type { Escalation, Resolution } from "../../records/escalation.js";
export type { HopSummary } from "../../records/hop.js";
export type { NodeView, RunView } from "../server/run-view.js";
export type { ResumeState } from "../server/resume-runner.js";
export type { RepairEntry, RunLineage } from "../server/repair-view.js";
export type { RunOrigin, RepairDelta, RepairSummary } from "../../authoring/run-origin.js";

export type ErrorInfo = SerializedError;
export type Counts = StoredItemPage["counts"];

export type RunRow = Omit<RunView, "nodes"> & {
  nodeCounts: { total: number; byStatus: Record<string, number> };
};
/** A page of a node's items as the console's API answers it: the store's page, each value as a text preview. */
export type ItemPage = Omit<StoredItemPage, "items"> & { items: { record: ItemRecord; value?: string }[] };

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

/** What the trace viewer's API answers: the server's view of the trace file, when there is one (`available`). */
export type TraceView = { available: boolean } & Partial<ServerTraceView>;
