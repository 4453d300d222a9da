// The cascade: a fast local delegate decides what it is sure of, a larger model (an `escalate_to` agent) decides
// the rest, and a person gets only what neither could. Prints who decided how many alerts, how many were right,
// and what each level cost.
//
//   npx tsx examples/cascade/run.ts                         # offline: distilled delegate + mock teacher
//   npx tsx examples/cascade/run.ts --fast local=MODEL.gguf  # a real small model as the fast level
//   npx tsx examples/cascade/run.ts --teacher-url http://127.0.0.1:8080/v1 --teacher-model NAME
//   npx tsx examples/cascade/run.ts --second local=MODEL.gguf --no-teacher   # distilled → real model → person
//   add --json for the summary as JSON, --limit N to serve only the first N alerts, --concurrency N items at once
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { defineAgent, mockModel, Pricing } from "deputy-js/agents";
import { DistilledDelegate, examplesFromTraces, trainDistilled } from "deputy-js/distill";
import { MemoryTraceSink, readTraces, type DelegateTrace } from "deputy-js/traces";
import { createDelegateFromSpec, runPlan, type ToolDefinition } from "deputy-js";
import { canonicalJson } from "deputy-js/plan";

const { values: flags } = parseArgs({
  options: {
    fast: { type: "string" },
    // A second small model asked when the fast level's proposal is rejected (on_reject: escalate walks the
    // backend chain before the teacher and the person).
    second: { type: "string" },
    "no-teacher": { type: "boolean", default: false },
    limit: { type: "string" },
    // Items in flight (the plan's for_each max_concurrency, 8): 1 makes a proposal's latency its own, not a queue's.
    concurrency: { type: "string" },
    "teacher-url": { type: "string" },
    "teacher-model": { type: "string", default: "teacher" },
    json: { type: "boolean", default: false },
  },
});
const here = new URL(".", import.meta.url);
const data = new URL("../alert-triage/data/", here);
process.env.DEPUTY_OUTBOX ??= join(mkdtempSync(join(tmpdir(), "cascade-")), "outbox.jsonl");
const { tools } = (await import(new URL("../alert-triage/tools.mjs", here).href)) as {
  tools: ToolDefinition[];
};

// Traffic: held-out alerts (worded unlike the training set), with their right calls, plus two that nobody should
// act on without a person.
const PREFIX = "Analyze this alert and select the most appropriate action: ";
const heldOut = readTraces(new URL("heldout.jsonl", data).pathname).traces;
// The first half of the held-out set tunes the fast level's threshold; the second half is the traffic, which
// no part of training saw.
const labelled = heldOut.slice(heldOut.length / 2).slice(0, flags.limit ? Number(flags.limit) : undefined);
const alerts = [
  ...labelled.map((t) => ({
    id: t.facts.alert_id,
    severity: t.facts.severity,
    summary: t.instruction.slice(PREFIX.length),
  })),
  { id: "ALR-90001", severity: "unknown", summary: "zzz ping ping check 7f3a" },
  { id: "ALR-90002", severity: "unknown", summary: "??" },
];
const expected = new Map(labelled.map((t) => [String(t.facts.alert_id), canonicalJson(t.finalCall)]));

// Level 1: a distilled delegate trained on the example's training traces (seconds), or a real model.
const train = examplesFromTraces(readTraces(new URL("train.jsonl", data).pathname).traces, "triage_items");
const tuning = examplesFromTraces(heldOut.slice(0, heldOut.length / 2), "triage_items").examples;
const trained = trainDistilled(train.examples, { node: "triage_items", heldOut: tuning });
const fast = flags.fast
  ? await createDelegateFromSpec(flags.fast)
  : new DistilledDelegate({ model: trained.model });
const second = flags.second ? await createDelegateFromSpec(flags.second) : undefined;

// Level 2: the teacher. Offline it is a mock that answers from the labels (a stand-in for a larger model that is
// right), priced at an assumed $0.15 / $0.60 per 1M tokens so the cost column means something.
Pricing.register("teacher", { input: 0.15, output: 0.6 });
const oracle = mockModel({
  modelId: "teacher",
  respond: ({ userText }) => {
    const id = /"alert_id":"([^"]+)"/.exec(userText)?.[1];
    const call = id ? expected.get(id) : undefined;
    if (!call) return { text: "DECLINE: not enough to go on." };
    const { name, arguments: input } = JSON.parse(call) as { name: string; arguments: unknown };
    return { toolCalls: [{ toolName: name, input }] };
  },
});
const teacher = defineAgent({
  name: "Teacher",
  backend: flags["teacher-url"]
    ? { provider: "openai-compatible", baseURL: flags["teacher-url"], model: flags["teacher-model"]! }
    : oracle,
  instructions:
    "You are the on-call lead. Page for customer-facing outages, ticket real but not urgent issues, ignore the rest.",
  actions: { triage: (alert: string) => alert },
});

const plan = JSON.parse(readFileSync(new URL("plan.json", here), "utf8")) as {
  nodes: Record<string, unknown>[];
};
if (!flags.fast) plan.nodes[1]!.min_confidence = trained.recommendedMinConfidence;
if (flags["no-teacher"]) delete plan.nodes[1]!.escalate_to;
if (flags.concurrency) {
  (plan.nodes[1]!.for_each as { max_concurrency: number }).max_concurrency = Number(flags.concurrency);
}
const traceSink = new MemoryTraceSink();
const loadAlerts = {
  name: "load_alerts",
  description: "The alerts to triage",
  delegateSafe: true,
  input: { type: "object" },
  run: () => ({ alerts }),
};
const started = performance.now();
const manifest = await runPlan(plan, {
  tools: [...tools, loadAlerts],
  delegates: second ? [fast, second] : [fast],
  ...(flags["no-teacher"] ? {} : { agents: { teacher } }),
  traceSink,
});
const wallMs = performance.now() - started;
await fast.close();
await second?.close();

// Who decided each item: the last accepted hop, else a person (the item is escalated).
const byItem = new Map<number, DelegateTrace[]>();
for (const t of traceSink.traces) byItem.set(t.item!, [...(byItem.get(t.item!) ?? []), t]);
const level = () => ({
  decided: 0,
  correct: 0,
  ms: 0,
  tokens: 0,
  usd: 0,
  asked: 0,
  p50Ms: 0,
  hops: [] as number[],
});
const levels = {
  fast: level(),
  ...(second ? { second: level() } : {}),
  ...(flags["no-teacher"] ? {} : { teacher: level() }),
  person: level(),
};
type Level = keyof typeof levels;
const levelOf = (h: DelegateTrace): Level =>
  h.source === "agent" ? "teacher" : second && h.backend === second.name ? "second" : "fast";
const details = manifest.nodes.triage_items!.itemDetails ?? {};
// The second level's proposals, accepted or not: its confidence and whether the call was the labelled one.
const secondScores: { confidence: number | null; right: boolean; verdict: string }[] = [];
for (const [item, hops] of byItem) {
  for (const h of hops) {
    levels[levelOf(h)]!.ms += h.latencyMs;
    levels[levelOf(h)]!.asked++;
    levels[levelOf(h)]!.hops.push(h.latencyMs);
  }
  const spend = details[item]?.spend as { tokens: number; cost: number } | undefined;
  if (spend) {
    levels.teacher!.tokens += spend.tokens;
    levels.teacher!.usd += spend.cost;
  }
  for (const h of hops) {
    if (second && h.backend === second.name && h.proposal) {
      const call = { name: h.proposal.name, arguments: h.proposal.arguments };
      secondScores.push({
        confidence: h.proposal.confidence,
        right: canonicalJson(call) === expected.get(String(alerts[item]!.id)),
        verdict: h.verdict,
      });
    }
  }
  const accepted = hops.find((h) => h.verdict === "accepted");
  const decider: Level = !accepted ? "person" : levelOf(accepted);
  levels[decider]!.decided++;
  const id = String(alerts[item]!.id);
  if (accepted && canonicalJson(accepted.finalCall) === expected.get(id)) levels[decider]!.correct++;
}

for (const l of Object.values(levels)) {
  l.hops.sort((a, b) => a - b);
  l.p50Ms = Math.round(l.hops[Math.floor(l.hops.length / 2)] ?? 0);
}
const summary = {
  items: alerts.length,
  status: manifest.status,
  wallMs: Math.round(wallMs),
  fastBackend: fast.name,
  ...(second ? { secondBackend: second.name, secondScores } : {}),
  minConfidence: plan.nodes[1]!.min_confidence,
  levels: Object.fromEntries(Object.entries(levels).map(([k, { hops: _hops, ...l }]) => [k, l])),
};
if (flags.json) console.log(JSON.stringify(summary, null, 2));
else {
  console.log(
    `cascade over ${alerts.length} alerts: run ${manifest.status} in ${summary.wallMs} ms (fast level: ${fast.name}, min_confidence ${summary.minConfidence})`,
  );
  console.log("level     asked  decided  correct  model time  p50 a proposal  tokens   USD");
  for (const [name, l] of Object.entries(levels)) {
    const correct = name === "person" ? "—" : `${l.correct}/${l.decided}`;
    console.log(
      `${name.padEnd(9)} ${String(l.asked).padStart(5)} ${String(l.decided).padStart(7)}  ${correct.padStart(7)}  ${`${Math.round(l.ms)} ms`.padStart(10)}  ${`${l.p50Ms} ms`.padStart(14)}  ${String(l.tokens).padStart(6)}  ${l.usd.toFixed(5)}`,
    );
  }
  console.log(
    `the ${levels.person.decided} left for a person wait in the run: deputy resolve … then deputy resume (see examples/alert-triage/README.md)`,
  );
}
