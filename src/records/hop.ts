import type { Proposal } from "../tools/proposal.js";
import type { DelegateTask } from "./delegate-task.js";

/** Who made a proposal: a delegate backend, an `escalate_to` agent, or a person's resolution. */
export type ProposalSource = "delegate" | "agent" | "person";

/**
 * One judged proposal: the task it answered, the proposal (`null` when there was none), the verdict and who
 * proposed it. A trace is a hop plus its time and run coordinates (`DelegateTrace`).
 */
export interface Hop extends DelegateTask {
  proposal: Proposal | null;
  verdict: string;
  /** The call the gate accepted. */
  finalCall?: { name: string; arguments: Record<string, unknown> };
  backend: string;
  latencyMs: number;
  /** `delegate` for a backend's proposal, `agent` for an escalate_to answer, `person` for a resolution. */
  source?: ProposalSource;
  /** The backend's or the guard's error. */
  error?: { code: string; message: string };
}
