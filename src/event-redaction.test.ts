import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { describe, expect, it } from "vitest";
import "./index.js";
import { DELEGATION_CHANNEL, publishDelegation, type DelegationEvent } from "./agents/events.js";

describe("delegation events through the root entry", () => {
  it("carry no secret a model or provider wrote (arguments and error messages pass the redactor)", () => {
    const seen: unknown[] = [];
    const listener = (message: unknown) => seen.push(message);
    subscribe(DELEGATION_CHANNEL, listener);
    try {
      publishDelegation({
        agent: "Caller",
        delegate: "Sub",
        tool: "lookup",
        arguments: {
          note: "pay with sk_live_51HxQ2bC3dE4fG5hI6jK7lM8n",
          nested: { authorization: "Bearer abc.def" },
        },
        status: "error",
        message: "upstream said: password=hunter2hunter2",
      } as unknown as DelegationEvent);
    } finally {
      unsubscribe(DELEGATION_CHANNEL, listener);
    }
    const text = JSON.stringify(seen);
    expect(seen).toHaveLength(1);
    expect(text).toContain("lookup");
    expect(text).not.toContain("sk_live_51HxQ2bC3dE4fG5hI6jK7lM8n");
    expect(text).not.toContain("hunter2hunter2");
    expect(text).not.toContain("abc.def");
  });
});
