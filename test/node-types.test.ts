import { z } from "zod";
import { agentNodeType } from "../src/agents/agent-node-type.js";
import { defineAgent } from "../src/agents/define-agent.js";
import { delegateNodeType } from "../src/delegate/delegate-node-type.js";
import { ScriptedDelegate, type ScriptedEntry } from "../src/delegate/scripted-delegate.js";
import { toolNodeType } from "../src/plan/tool-node-type.js";
import { defineTool } from "../src/tools/define-tool.js";
import { nodeTypeSuite } from "./node-type-suite.js";
import { waitNodeType } from "./wait-node-type.js";

// Every node type passes the same suite: the three built-in ones and the documented example (`wait`).

const echo = defineTool({
  name: "echo",
  description: "Answers with what it was given",
  input: z.object({ text: z.unknown() }),
  delegateSafe: true,
  run: ({ text }) => ({ text }),
});

nodeTypeSuite({
  type: toolNodeType,
  host: () => ({ tools: [echo] }),
  ok: { tool: "echo", args: { text: "hi" } },
  perItem: { tool: "echo", args: { text: "{item}" } },
  reads: { tool: "echo", args: { text: "{artifacts.written}" } },
  invalid: { fields: { tool: "ecko" }, code: "unknown_tool" },
});

// The suite's node ids, answered by the script: one accepted proposal each (per item under for_each).
const call = { name: "echo", arguments: { text: "from the delegate" }, confidence: 0.9 };
const script = (): ScriptedEntry[] => [
  ...["single", "writer", "reader"].map((node) => ({ node, proposal: call })),
  ...[0, 1, 2].map((item) => ({ node: "each", item, proposal: { ...call, arguments: { text: item } } })),
];

nodeTypeSuite({
  type: delegateNodeType,
  host: () => ({ tools: [echo], delegates: [new ScriptedDelegate({ entries: script() })] }),
  ok: { instruction: "Echo hi", tools: ["echo"] },
  perItem: { instruction: "Echo {item}", tools: ["echo"] },
  reads: { instruction: "Echo it", facts: { it: "{artifacts.written}" }, tools: ["echo"] },
  invalid: { fields: { instruction: "Echo", tools: ["ecko"] }, code: "unknown_tool" },
});

const echoer = defineAgent({
  name: "Echoer",
  backend: { provider: "mock" },
  actions: { say: ({ text }: { text: unknown }) => `Say ${JSON.stringify(text)}` },
});

nodeTypeSuite({
  type: agentNodeType,
  host: () => ({ tools: [echo], agents: { echoer } }),
  ok: { agent: "echoer", input: { text: "hi" } },
  perItem: { agent: "echoer", input: { text: "{item}" } },
  reads: { agent: "echoer", input: { text: "{artifacts.written}" } },
  invalid: { fields: { agent: "echoe" }, code: "unknown_agent" },
});

nodeTypeSuite({
  name: "wait (the documented example)",
  type: waitNodeType,
  host: () => ({ tools: [] }),
  ok: { seconds: 0.001 },
  perItem: { seconds: 0, value: "{item}" },
  reads: { seconds: 0, value: "{artifacts.written}" },
  invalid: { fields: { seconds: 2, timeout: 1 }, code: "wait_exceeds_timeout" },
});
