// Generates the alert-triage training and held-out sets for `deputy distill`.
//
//   node examples/alert-triage/data/generate.mjs [--train 400] [--heldout 150] [--styled 800] [--sources 600]
//     [--notices 600] [--seed 7] [--out DIR]
//
// `styled.jsonl` holds alerts in the styles real sources and people write (Alertmanager, Datadog, CloudWatch,
// Sentry, PagerDuty, chat; terse, verbose, some misspelled: templates in styles.mjs), labelled by the same rules,
// from a seed of its own so train.jsonl and heldout.jsonl stay as they were.
//
// (the shipped files are the defaults; --out writes elsewhere, e.g. larger sets for bench/distill.ts).
//
// Each line is a delegate trace exactly as the example's delegate node renders its input:
//   instruction "Analyze this alert and select the most appropriate action: {item.summary}"
//   facts       { alert_id: "{item.id}", severity: "{item.severity}", environment: "production" }
// with the correct call as `finalCall` (verdict "accepted", source "person": these are labels, not a model's
// guesses). The severity is the one the source sent, as real sources send it: a staging rule fires as critical as
// its production twin, and a resolved alert keeps the severity it fired with — so non-production and resolved
// alerts come at every severity (about half high or critical) and only the environment or state decides those
// labels, never the severity. The rules an on-call lead would apply:
//   - outage, failing payments, errors or data at risk for customers → escalate_to_pagerduty
//     (urgency "high" when severity is critical, "low" when it is high; summary = the alert text)
//   - real but not urgent (slowness, failing batch jobs, crash rates, delays) → file_jira_ticket
//     (project "OPS"; priority P2/P3/P4 for severity high/medium/low; title = the alert text); so is a chore a
//     person must do by hand, whatever its deadline: renew a certificate, licence or domain that does not renew
//     itself, rotate an expiring token or key, patch flagged vulnerabilities, delete unused resources, fix drift
//   - informational (needs no one: done automatically, scheduled maintenance, reports, digests, recommendations
//     to consider), non-production, or already resolved → ignore_alert (reason names which)
// Training and held-out alerts come from *different* phrasings (TRAIN vs HELDOUT templates below), so the
// held-out figures measure wording the model has not seen, not memorised sentences.
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { tools } from "../tools.mjs";
import { NOTICES, noticeSlots } from "./notices.mjs";
import { SOURCES, sourceSlots } from "./sources.mjs";
import { STYLED, styleSlots, typo } from "./styles.mjs";

const args = Object.fromEntries(
  process.argv.slice(2).flatMap((a, i, all) => (a.startsWith("--") ? [[a.slice(2), all[i + 1]]] : [])),
);
const SIZES = {
  train: Number(args.train ?? 400),
  heldout: Number(args.heldout ?? 150),
  styled: Number(args.styled ?? 800),
  sources: Number(args.sources ?? 600),
  notices: Number(args.notices ?? 600),
};
let seed = Number(args.seed ?? 7) >>> 0;
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (list) => list[Math.floor(random() * list.length)];
const int = (lo, hi) => lo + Math.floor(random() * (hi - lo + 1));

const SERVICES = [
  "checkout",
  "payments",
  "auth",
  "search",
  "orders",
  "inventory",
  "billing",
  "catalog",
  "shipping",
  "notifications",
  "gateway",
  "profile",
  "recommendations",
  "mobile-api",
  "cart",
];
const REGIONS = ["eu-west-1", "us-east-1", "us-west-2", "ap-southeast-2", "eu-central-1"];
const JOBS = [
  "invoice export",
  "report generation",
  "search reindex",
  "data warehouse load",
  "thumbnail rendering",
  "email digest",
  "ledger reconciliation",
];
const cap = (s) => s[0].toUpperCase() + s.slice(1);

// Slot fillers shared by both phrasings.
const slot = {
  svc: () => pick(SERVICES),
  Svc: () => cap(pick(SERVICES)),
  region: () => pick(REGIONS),
  pct: () => String(int(5, 95)),
  small: () => `${int(1, 9)}.${int(0, 9)}`,
  min: () => String(int(3, 55)),
  secs: () => String(int(2, 30)),
  job: () => pick(JOBS),
  ver: () => `${int(2, 9)}.${int(0, 30)}`,
  host: () => `${pick(["web", "db", "cache", "worker", "build"])}-${int(1, 40)}`,
  days: () => String(int(7, 60)),
  time: () => `${String(int(0, 23)).padStart(2, "0")}:${String(int(0, 59)).padStart(2, "0")}`,
};
const fill = (template) => template.replace(/\{(\w+)\}/g, (_, k) => slot[k]());

// Word pools shared by both phrasings: an alert about an outage uses the same vocabulary whoever writes it;
// what differs between the training and held-out sets is how the sentences are built.
const POOLS = {
  down: [
    "is down",
    "is unavailable",
    "is unreachable",
    "is returning errors",
    "is failing",
    "is timing out",
    "is rejecting requests",
    "is broken",
  ],
  impact: [
    "payments failing",
    "customers cannot check out",
    "users cannot log in",
    "orders not going through",
    "data loss risk",
    "stale data shown to customers",
    "card authorisations declining",
    "checkout broken for shoppers",
  ],
  slow: [
    "latency p95 above {secs}s",
    "response times {pct}% slower",
    "median request time doubled",
    "throughput down {pct}%",
    "cache hit ratio dropped to {pct}%",
    "memory usage growing steadily",
    "queue backlog growing",
  ],
  batch: ["failed twice", "did not complete", "keeps failing", "ran {min} minutes late", "stopped halfway"],
  crash: [
    "crash rate up from {small}% to {small}%",
    "crash-free sessions fell to {pct}%",
    "ANR rate doubled",
  ],
  fyi: [
    "completed successfully",
    "finished on schedule",
    "rolled out without errors",
    "completed in {min} minutes",
    "renews in {days} days (auto-renew enabled)",
  ],
  nonprod: [
    "staging",
    "test environment",
    "dev cluster",
    "QA sandbox",
    "preview environment",
    "load-test rig",
  ],
  nonprodIssue: [
    "disk usage at {pct}%",
    "pod restarting repeatedly",
    "error rate at {pct}%",
    "out of memory",
    "certificate expired",
    "smoke test failing",
  ],
  recovered: [
    "recovered on its own",
    "back to normal",
    "resolved without action",
    "cleared up by itself",
    "succeeded on retry",
    "passed on the automatic rerun",
  ],
  blip: [
    "latency spike for {secs} seconds",
    "health check flapped once",
    "brief connection errors at {time}",
    "transient timeouts",
    "job failed once",
  ],
};
const pool = (name) => pick(POOLS[name]);
slot.down = () => pool("down");
slot.impact = () => pool("impact");
slot.Impact = () => cap(pool("impact"));
slot.slow = () => fill(pool("slow"));
slot.batch = () => fill(pool("batch"));
slot.crash = () => fill(pool("crash"));
slot.fyi = () => fill(pool("fyi"));
slot.env = () => pool("nonprod");
slot.Env = () => cap(pool("nonprod"));
slot.issue = () => fill(pool("nonprodIssue"));
slot.recovered = () => pool("recovered");
slot.blip = () => fill(pool("blip"));
slot.Blip = () => cap(fill(pool("blip")));

// family: its call, the severities it comes with, and its training and held-out sentence structures.
const FAMILIES = {
  outage: {
    action: "page",
    severities: ["critical", "high"],
    train: [
      "{Svc} API error rate at {pct}% for {min} minutes; {impact} in {region}",
      "{Svc} {down} in {region}: {impact}",
      "Primary database for {svc} {down}; {impact}",
      "{Svc} returning HTTP 500 for {pct}% of requests since {time}; {impact}",
      "{Impact} in {region}, {svc} {down}",
    ],
    heldout: [
      "Outage: {svc} {down} for users in {region} for the last {min} minutes ({impact})",
      "{pct}% of {svc} calls erroring out and {impact}",
      "Users report {svc} {down}; {impact}",
    ],
  },
  degraded: {
    action: "ticket",
    severities: ["high", "medium", "low"],
    train: [
      "{Svc} {slow} since the {time} deploy",
      "Nightly {job} job {batch} on {host}",
      "Android app {crash} on version {ver}",
      "{Svc} {slow} on {host}",
      "Disk usage at {pct}% on production host {host}",
    ],
    heldout: [
      "Slowness in {svc} after release {ver}: {slow}",
      "The {job} batch {batch} last night ({host})",
      "iOS build {ver}: {crash}",
      "Production volume on {host} {pct}% full and filling slowly",
    ],
  },
  informational: {
    action: "ignore",
    reason: "informational",
    severities: ["info", "info", "low", "medium"],
    train: [
      "Certificate for {svc}.example.com {fyi}",
      "Weekly {job} {fyi}",
      "{Svc} deploy {ver} {fyi}",
      "Scheduled backup of {svc} database {fyi}",
    ],
    heldout: [
      "FYI: {svc} release {ver} {fyi}",
      "Routine {job} run {fyi}",
      "Info only: the {svc} TLS certificate {fyi}",
    ],
  },
  nonProduction: {
    action: "ignore",
    reason: "non-production",
    // The same alert rules as production, fired from another environment: every severity.
    severities: ["critical", "high", "high", "medium", "low", "info"],
    train: ["{Env} {svc} {issue}", "{Env} build agent {secs}: {issue}", "{Svc} in the {env} {issue}"],
    heldout: ["Only {env} affected: {svc} {issue} on {host}", "{Issue} on {host} ({env}, not production)"],
  },
  resolved: {
    action: "ignore",
    reason: "self-resolved",
    // A resolved alert keeps the severity it fired with (pages resolve too): every severity.
    severities: ["critical", "high", "high", "medium", "medium", "low"],
    train: [
      "Nightly {job} job failed once and {recovered}",
      "{Svc} {blip}, {recovered}",
      "{Blip} on {svc}; {recovered}",
    ],
    heldout: [
      "{Svc} had {blip} at {time} but {recovered}, no customer impact",
      "Self-healed: {blip} in {svc} {recovered}",
    ],
  },
};
// Chores a person must do by hand (the policy's chores clause): tickets, mostly low priority. Only notices.mjs
// writes them, so the earlier sets' phrasings cycle over the same five families as before.
FAMILIES.chore = { action: "ticket", severities: ["low", "low", "medium"] };
slot.Issue = () => cap(fill(pool("nonprodIssue")));
Object.assign(slot, styleSlots(pick, int), sourceSlots(pick, int), noticeSlots(pick, int));
for (const [name, family] of Object.entries(FAMILIES)) {
  family.styled = STYLED[name];
  family.sources = SOURCES[name];
  family.notices = NOTICES[name];
}

const tool = (name) => tools.find((t) => t.name === name);
const specs = ["escalate_to_pagerduty", "file_jira_ticket", "ignore_alert"].map((name) => {
  const t = tool(name);
  return { name, description: t.delegateDescription ?? t.description, parameters: t.input };
});

function call(family, id, severity, summary) {
  if (family.action === "page")
    return {
      name: "escalate_to_pagerduty",
      arguments: { alert_id: id, urgency: severity === "critical" ? "high" : "low", summary },
    };
  if (family.action === "ticket")
    return {
      name: "file_jira_ticket",
      arguments: {
        alert_id: id,
        project: "OPS",
        priority: { high: "P2", medium: "P3", low: "P4" }[severity],
        title: summary,
      },
    };
  return { name: "ignore_alert", arguments: { alert_id: id, reason: family.reason } };
}

function traces(count, phrasing, firstId) {
  const names = Object.keys(FAMILIES).filter((name) => FAMILIES[name][phrasing]);
  const out = [];
  for (let n = 0; n < count; n++) {
    const family = FAMILIES[names[n % names.length]];
    const severity = pick(family.severities);
    let summary = fill(pick(family[phrasing]));
    if (phrasing !== "train" && phrasing !== "heldout" && random() < 0.2) summary = typo(summary, random);
    const id = `ALR-${firstId + n}`;
    const finalCall = call(family, id, severity, summary);
    out.push({
      runId: `generated-${phrasing}`,
      nodeId: "triage_items",
      item: n,
      instruction: `Analyze this alert and select the most appropriate action: ${summary}`,
      facts: { alert_id: id, severity, environment: "production" },
      tools: specs,
      proposal: null,
      verdict: "accepted",
      finalCall,
      backend: "generator",
      latencyMs: 0,
      time: "2026-01-01T00:00:00.000Z",
      source: "person",
    });
  }
  return out;
}

const here = args.out ? pathToFileURL(`${resolve(args.out)}/`) : new URL(".", import.meta.url);
const write = (file, lines) =>
  writeFileSync(
    new URL(file, here),
    lines.map((l) => JSON.stringify(l)).join("\n") + (lines.length ? "\n" : ""),
  );
write("train.jsonl", traces(SIZES.train, "train", 20000));
write("heldout.jsonl", traces(SIZES.heldout, "heldout", 50000));
seed = (Number(args.seed ?? 7) + 1000) >>> 0;
if (SIZES.styled > 0) write("styled.jsonl", traces(SIZES.styled, "styled", 30000));
seed = (Number(args.seed ?? 7) + 2000) >>> 0;
if (SIZES.sources > 0) write("sources.jsonl", traces(SIZES.sources, "sources", 40000));
seed = (Number(args.seed ?? 7) + 3000) >>> 0;
if (SIZES.notices > 0) write("notices.jsonl", traces(SIZES.notices, "notices", 60000));
console.log(
  `wrote ${SIZES.train} training, ${SIZES.heldout} held-out, ${SIZES.styled} styled, ${SIZES.sources} sources and ${SIZES.notices} notices traces to ${here.pathname}`,
);
