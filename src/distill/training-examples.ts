import { canonicalJson } from "../runtime/canonical-json.js";
import type { DelegateTask } from "../records/delegate-task.js";
import type { CallOrDecline, ProposalSource } from "../records/hop.js";
import type { DelegateTrace } from "../traces/trace.js";

/** A labelled input: what a node asked, and the call that was right for it (`name: null`: decline). */
export interface TrainingExample extends DelegateTask {
  call: CallOrDecline;
  /** Who made the call: the delegate (accepted by the gate), an `escalate_to` agent, or a person. */
  source: ProposalSource;
}

/** What {@link examplesFromTraces} kept and why it left the rest out. */
export interface ExampleSelection {
  examples: TrainingExample[];
  skipped: {
    otherNode: number;
    notLabelled: number;
    redacted: number;
    duplicate: number;
    conflicting: number;
  };
}

const CUT = /…\[\+\d+ chars\]/;
const REDACTED = "[REDACTED]";

/**
 * Labelled examples of one node from its traces: accepted final calls (the delegate's that passed the gate, an
 * `escalate_to` agent's, a person's resolution) and declines made by an agent or a person (a backend's own
 * decline is not a label: nobody checked it); a call whose tool name is empty is no label. Redacted or cut text
 * is left out (the model would learn the markers). Identical inputs are kept once; when the same input got different calls, the later trace wins (a
 * person correcting a model comes after it) and the earlier ones are counted as conflicting.
 */
export function examplesFromTraces(traces: Iterable<DelegateTrace>, nodeId: string): ExampleSelection {
  const skipped = { otherNode: 0, notLabelled: 0, redacted: 0, duplicate: 0, conflicting: 0 };
  const byInput = new Map<string, { example: TrainingExample; call: string }>();
  for (const trace of traces) {
    if (trace.nodeId !== nodeId) {
      skipped.otherNode++;
      continue;
    }
    const source = trace.source ?? "delegate";
    let call: TrainingExample["call"] | undefined;
    // a call that names no tool labels nothing (no model can propose it)
    if (trace.verdict === "accepted" && trace.finalCall && trace.finalCall.name !== "")
      call = trace.finalCall;
    else if (trace.verdict === "declined" && source !== "delegate") call = { name: null, arguments: {} };
    if (!call) {
      skipped.notLabelled++;
      continue;
    }
    const facts = trace.facts ?? {};
    const inputKey = `${trace.instruction}\u0000${canonicalJson(facts)}`;
    const callKey = canonicalJson(call);
    if ([inputKey, callKey].some((t) => t.includes(REDACTED) || CUT.test(t))) {
      skipped.redacted++;
      continue;
    }
    const previous = byInput.get(inputKey);
    if (previous) {
      if (previous.call === callKey) skipped.duplicate++;
      else skipped.conflicting++;
      byInput.delete(inputKey);
    }
    byInput.set(inputKey, {
      example: { instruction: trace.instruction, facts, call, tools: trace.tools ?? [], source },
      call: callKey,
    });
  }
  return { examples: [...byInput.values()].map((v) => v.example), skipped };
}

/** Whether a predicted call is exactly the labelled one (tool and every argument, key order aside). */
export function exactMatch(predicted: CallOrDecline, call: TrainingExample["call"]): boolean {
  if (predicted.name !== call.name) return false;
  return call.name === null || canonicalJson(predicted.arguments) === canonicalJson(call.arguments);
}
