import type { ProposalSource } from "../records/hop.js";
import { buildPrompt } from "../runtime/tool-call-prompt.js";
import { REDACTED } from "./redact.js";
import type { DelegateTrace } from "./trace.js";

/** One chat-format fine-tuning example (the OpenAI / Hugging Face `messages` shape). */
export interface ChatExample {
  messages: [
    { role: "system"; content: string },
    { role: "user"; content: string },
    { role: "assistant"; content: string },
  ];
}

/** Options of {@link tracesToChat}. */
export interface TraceExportOptions {
  /** Which hops to keep by source. Default: all (`delegate`, `agent`, `person` — a person's call is good data —, `repair`). */
  sources?: readonly ProposalSource[];
  /** Keep examples whose text was redacted or cut (`[REDACTED]`, `…[+N chars]`). Default `false`: they would teach the model to write those markers. */
  keepRedacted?: boolean;
}

/** What the export kept and why the rest was left out. */
export interface TraceExport {
  examples: ChatExample[];
  skipped: { notAccepted: number; otherSource: number; redacted: number; duplicate: number };
}

const CUT = /…\[\+\d+ chars\]/;

/**
 * Accepted proposals as chat-format fine-tuning examples: the same system and user prompt a backend sends
 * ({@link buildPrompt}) and the accepted call as the assistant's JSON answer. Identical examples are kept once.
 */
export function tracesToChat(traces: Iterable<DelegateTrace>, options: TraceExportOptions = {}): TraceExport {
  const sources: readonly ProposalSource[] = options.sources ?? ["delegate", "agent", "person", "repair"];
  const skipped = { notAccepted: 0, otherSource: 0, redacted: 0, duplicate: 0 };
  const examples: ChatExample[] = [];
  const seen = new Set<string>();
  for (const trace of traces) {
    if (trace.verdict !== "accepted" || !trace.finalCall) {
      skipped.notAccepted++;
      continue;
    }
    if (!sources.includes(trace.source ?? "delegate")) {
      skipped.otherSource++;
      continue;
    }
    const { system, user } = buildPrompt({
      instruction: trace.instruction,
      facts: trace.facts ?? {},
      tools: trace.tools ?? [],
    });
    const answer = JSON.stringify({ name: trace.finalCall.name, arguments: trace.finalCall.arguments });
    if (!options.keepRedacted && [user, answer].some((text) => text.includes(REDACTED) || CUT.test(text))) {
      skipped.redacted++;
      continue;
    }
    const key = `${system}\u0000${user}\u0000${answer}`;
    if (seen.has(key)) {
      skipped.duplicate++;
      continue;
    }
    seen.add(key);
    examples.push({
      messages: [
        { role: "system", content: system },
        { role: "user", content: user },
        { role: "assistant", content: answer },
      ],
    });
  }
  return { examples, skipped };
}
