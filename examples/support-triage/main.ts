/**
 * Support triage: a TriageAgent delegates to a ticket classifier (declared output) and a help-centre
 * knowledge base, under the seed's budgets, and prints the answer, every delegation as it happens, and the
 * ledgers.
 *
 *   npx tsx examples/support-triage/main.ts                       # offline, on the mock provider
 *   npx tsx examples/support-triage/main.ts --base-url http://127.0.0.1:8080/v1 --model NAME
 *   npx tsx examples/support-triage/main.ts --ticket "My invoice is wrong" --json
 */
import { subscribe } from "node:diagnostics_channel";
import { parseArgs } from "node:util";
import {
  DELEGATION_CHANNEL,
  DELEGATION_REFUSED_CHANNEL,
  type BackendSpec,
  type DelegationEvent,
  type DelegationRefusedEvent,
  Pricing,
} from "../../src/agents/index.js";
import { buildAgents } from "./agents.js";

const { values } = parseArgs({
  options: {
    "base-url": { type: "string" },
    model: { type: "string", default: "default" },
    "api-key": { type: "string" },
    ticket: {
      type: "string",
      default:
        "I was charged twice for my subscription this month, a billing error. How do I get a refund? Urgency: high.",
    },
    json: { type: "boolean", default: false },
  },
});

const backend: BackendSpec = values["base-url"]
  ? {
      provider: "openai-compatible",
      baseURL: values["base-url"],
      model: values.model,
      ...(values["api-key"] ? { apiKey: values["api-key"] } : {}),
    }
  : { provider: "mock" };

// Illustrative prices (USD per 1M tokens) so the offline ledgers show a cost; register what you really pay.
if (!values["base-url"]) Pricing.register("mock", { input: 0.15, output: 0.6 });

subscribe(DELEGATION_CHANNEL, (message) => {
  const e = message as DelegationEvent;
  console.error(
    `  ${e.agent} → ${e.delegate}#${e.action} as ${e.tool}: ${e.status}, ${e.durationMs} ms, ${e.usage.totalTokens} tokens`,
  );
});
subscribe(DELEGATION_REFUSED_CHANNEL, (message) => {
  const e = message as DelegationRefusedEvent;
  console.error(`  ${e.agent} → ${e.tool} refused: ${e.limit} (${e.used} of ${e.allowed} used)`);
});

const { triage } = buildAgents(backend);
console.error(
  `TriageAgent on ${values["base-url"] ? `${values["base-url"]} (${values.model})` : "the mock provider"}`,
);
let result;
try {
  result = await triage.run("triage", { ticket: values.ticket });
} catch (error) {
  console.error(`support-triage: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

if (values.json) {
  console.log(
    JSON.stringify(
      { text: result.text, usage: result.usage, ledger: result.ledger, ledgers: result.ledgers },
      null,
      2,
    ),
  );
} else {
  console.log(`\nAnswer:\n${result.text}\n`);
  console.log(
    `Own usage: ${result.usage.totalTokens} tokens (${result.usage.inputTokens} in, ${result.usage.outputTokens} out)`,
  );
  console.log(`Delegation ledger: ${JSON.stringify(result.ledger)}`);
  for (const [tool, ledger] of Object.entries(result.ledgers))
    console.log(`  ${tool}: ${JSON.stringify(ledger)}`);
}
