import { describe, expect, it } from "vitest";
import { buildPrompt } from "../runtime/tool-call-prompt.js";
import { tracesToChat } from "./trace-export.js";
import type { DelegateTrace } from "./trace.js";

const tools = [
  {
    name: "ignore_alert",
    description: "Ignore",
    parameters: { type: "object", properties: { reason: { type: "string" } } },
  },
];
const t = (over: Partial<DelegateTrace>): DelegateTrace => ({
  runId: "r",
  nodeId: "n",
  instruction: "Triage: noise",
  facts: { sev: "low" },
  tools,
  proposal: null,
  verdict: "accepted",
  finalCall: { name: "ignore_alert", arguments: { reason: "noise" } },
  backend: "b",
  latencyMs: 1,
  time: "",
  source: "delegate",
  ...over,
});

describe("tracesToChat", () => {
  it("turns accepted proposals into system/user/assistant examples with the backend's prompt", () => {
    const { examples, skipped } = tracesToChat([
      t({}),
      t({}),
      t({ verdict: "declined", finalCall: undefined }),
      t({ facts: { sev: "[REDACTED]" } }),
      t({ source: "person", instruction: "Triage: by hand" }),
    ]);
    expect(skipped).toEqual({ notAccepted: 1, otherSource: 0, redacted: 1, duplicate: 1 });
    expect(examples).toHaveLength(2);
    const prompt = buildPrompt({ instruction: "Triage: noise", facts: { sev: "low" }, tools });
    expect(examples[0]!.messages).toEqual([
      { role: "system", content: prompt.system },
      { role: "user", content: prompt.user },
      { role: "assistant", content: '{"name":"ignore_alert","arguments":{"reason":"noise"}}' },
    ]);
    expect(tracesToChat([t({ source: "person" })], { sources: ["delegate"] }).skipped.otherSource).toBe(1);
    expect(tracesToChat([t({ facts: { sev: "[REDACTED]" } })], { keepRedacted: true }).examples).toHaveLength(
      1,
    );
  });
});
