// Counterfactual copies of labelled alerts, from the example's policy: "only the environment or the state decides
// the non-production and self-resolved labels". A share of the pages and tickets people labelled is copied, marked
// as coming from a non-production environment (`[staging] …`, `… - env:dev`, "prod" → "staging") and labelled
// `ignore_alert` "non-production", severity and the rest of the text unchanged. A model trained only on the
// originals learns "payments failing → page" even for staging; the copies are the counterexamples that teach it the
// marker decides. Defaults (non-production copies of half of them) were chosen on development data only, leaving
// each hand-written set out in turn (bench/distill-loso.ts, docs/distill.md); resolved copies
// (`kinds: ["self-resolved"]`) were tried there and cost more coverage than they gained precision.
//
//   node examples/alert-triage/data/counterfactual.mjs OUT.jsonl SET.jsonl…   # writes the copies of SETs' traces
//
// `counterfactuals(examples)` works on traces and on training examples alike (`instruction`, `facts`,
// `finalCall` or `call`); copies and markers are drawn by a fixed seed, so the same input gives the same copies.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const PREFIX = "Analyze this alert and select the most appropriate action: ";
const NONPROD = [
  (t) => `[staging] ${t}`,
  (t) => `${t} (staging only)`,
  (t) => `STAGING: ${t}`,
  (t) => `${t} - env:dev`,
  (t) => `[qa] ${t}`,
  (t) => `sandbox: ${t}`,
  (t) => `${t} -- this is on the staging cluster, not prod`,
  (t) => `preview env: ${t}`,
  (t) => `uat ${t}`,
  (t) => `${t} [env=stg]`,
  (t) => `dev environment: ${t}`,
  (t) => `${t} (loadtest env)`,
];
const RESOLVED = [
  (t) => `[RESOLVED] ${t}`,
  (t) => `${t} - recovered, back to normal`,
  (t) => `OK: ${t} (cleared)`,
  (t) => `resolved: ${t}`,
  (t) => `${t}. update: fixed itself, all green now`,
  (t) => `Recovered: ${t}`,
  (t) => `${t} [auto-resolved after 4m]`,
  (t) => `nvm, this cleared on its own: ${t}`,
  (t) => `${t} -> state changed to OK`,
  (t) => `[Recovered] ${t}`,
];

function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x ^= x + Math.imul(x ^ (x >>> 7), 61 | x);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** The non-production and resolved copies of every page and ticket among `examples`. */
export function counterfactuals(examples, { seed = 11, kinds = ["non-production"], share = 0.5 } = {}) {
  const next = random(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const out = [];
  for (const e of examples) {
    const call = e.finalCall ?? e.call;
    if (!call || !["escalate_to_pagerduty", "file_jira_ticket"].includes(call.name)) continue;
    if (!e.instruction.startsWith(PREFIX) || next() >= share) continue;
    const text = e.instruction.slice(PREFIX.length);
    const id = call.arguments.alert_id;
    const prodless = text.replace(/\bprod(uction)?\b/gi, "staging");
    for (const [mark, reason] of [
      [pick(NONPROD)(prodless), "non-production"],
      [pick(RESOLVED)(text), "self-resolved"],
    ]) {
      if (!kinds.includes(reason)) continue;
      const copy = { name: "ignore_alert", arguments: { alert_id: id, reason } };
      out.push({
        ...e,
        instruction: PREFIX + mark,
        ...(e.finalCall ? { finalCall: copy } : { call: copy }),
        ...(e.runId ? { runId: "counterfactual" } : {}),
      });
    }
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const [outFile, ...sets] = process.argv.slice(2);
  if (!outFile || sets.length === 0) {
    console.error("usage: counterfactual.mjs OUT.jsonl SET.jsonl…");
    process.exit(2);
  }
  const traces = sets.flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l)),
  );
  const copies = counterfactuals(traces);
  writeFileSync(outFile, copies.map((t) => JSON.stringify(t)).join("\n") + "\n");
  console.error(`${outFile}: ${copies.length} counterfactual traces from ${traces.length}`);
}
