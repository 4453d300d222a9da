// Alert sentences for generate.mjs's `notices.jsonl`: the kinds holdout9 (development data since its measurement)
// showed the models misreading, in wordings of their own — chores a person must do by hand (a ticket, by the policy's
// chores clause), notices that need no one, and recoveries worded as people and sources word them ("back to
// normal", "no longer met", "standing down", "nvm", "green again") — with pages and non-production twins beside
// them so that the set does not tilt the models towards `ignore_alert`. Written after reading holdout5–9's wrong
// calls (docs/learning.md says which figures that makes in-sample); no template copies a hand-written set
// (validation-split.test.ts checks runs of ten words).

const THINGS = [
  "certificate",
  "API token",
  "service account key",
  "deploy key",
  "webhook secret",
  "SSH host key",
];
const SCANNERS = ["Dependabot", "Snyk", "Trivy", "Grype", "GitHub code scanning", "npm audit"];
const CLOUDS = ["AWS", "Azure", "Google Cloud", "DigitalOcean", "Hetzner"];
const PEOPLE = ["sam", "priya", "jo", "alex", "mei", "tomas", "ana", "kofi"];

/** Extra slot fillers (given generate.mjs's `pick` and `int`). */
export function noticeSlots(pick, int) {
  return {
    thing: () => pick(THINGS),
    scanner: () => pick(SCANNERS),
    cloud: () => pick(CLOUDS),
    who: () => pick(PEOPLE),
    cves: () => String(int(1, 9)),
    wk: () => String(int(1, 6)),
    normal: () =>
      pick([
        "back to normal",
        "condition no longer met",
        "state is OK",
        "cleared",
        "returned to baseline",
        "below the threshold again",
        "healthy",
      ]),
    chat: () =>
      pick([
        "nvm",
        "false alarm,",
        "update:",
        "ok scratch that,",
        "all good now,",
        "standing down,",
        "never mind the ping,",
      ]),
  };
}

/** Templates per family (generate.mjs's families; `chore` is a ticket family of its own). */
export const NOTICES = {
  chore: [
    "{thing} for the {svc} integration expires in {days} days and is not renewed automatically, someone has to rotate it",
    "{scanner}: {cves} vulnerable packages in {svc} (prod image), upgrades available, please patch",
    "{cloud} cost report: {k} unused load balancers and {k} orphaned snapshots in prod, delete them",
    "Terraform plan for {svc}-prod shows {k} resources changed by hand in the console, reconcile the state",
    "domain registrar: {site} expires in {days} days, auto-renew is switched off",
    "reminder from {who}: the vendor licence for {svc} monitoring runs out in {days} days, needs a purchase order",
    "{cloud}: runtime version used by {svc}-prod functions reaches end of support in {days} days, upgrade required",
    "cert check: {site} certificate was issued by hand and expires in {days} days, renew it manually",
    "quarterly access review: {k} stale admin accounts on {svc} prod still active, remove them",
    "{svc} is still on the deprecated v{k} API of our payment provider, it is switched off in {wk} months",
    "disk cleanup needed: {host} keeps {k} old kernels and {pct}% of /boot, remove the old ones",
    "{scanner} flagged a secret committed to the {svc} repo {wk} weeks ago, rotate it and clean the history",
  ],
  informational: [
    "{thing} for {svc} rotated automatically by the secrets manager, next rotation in {days} days",
    "{scanner}: weekly scan of {svc} finished, 0 new findings",
    "{cloud} status: incident in another region, our regions are not affected",
    "DR drill for {svc} completed as planned, failover and failback took {min} minutes",
    "maintenance notice from {cloud}: {svc}-db host patching on Sunday, handled by the provider, no action",
    "{site} certificate renewed by the ACME client, valid for {days} more days",
    "{cloud} Advisor suggestion: {svc}-prod could use a smaller instance size, estimated saving {pct}%",
    "monthly report: {svc} availability 99.9{k}%, {k} deploys, no incidents",
    "{who} here, fyi: I merged the {scanner} minor version bumps for {svc}, no behaviour change",
    "backup verification for {svc} passed, {k} of {k} restores tested",
  ],
  resolved: [
    "[OK] {Svc} error rate on prod: {normal} after {min} minutes",
    "{chat} the {svc} alarm was a blip, it is {normal}",
    "CloudWatch state change ALARM -> OK for {svc}-prod-latency, {normal}",
    "{chat} checkout errors stopped on their own at {time}, orders go through again",
    "[RESOLVED] {Svc}HighLatency instance={host} - {normal}",
    "the {svc} queue backlog drained by itself, {normal}, nothing lost",
    "Monitor recovered: {site} answering 200 again from every probe after {dur}",
    "{who}: {chat} {svc} is green again, the spike lasted {secs} seconds",
    "incident for {svc} closed automatically, alert condition no longer met for {min} minutes",
    "{Svc} prod memory went up to {pct}% during the deploy and came back down, {normal}",
    "replica lag on {host} caught up, {normal}, no customer saw stale data",
  ],
  outage: [
    "{who} on support: customers cannot pay, every card is declined since {time}, please page someone",
    "[CRITICAL] {Svc} prod returns 500 on every request since the {time} deploy, {impact}",
    "{cloud} incident in our region: {svc}-prod database unreachable, {impact}",
    "orders placed since {time} are missing from the prod database, data is being lost",
    "{site} shows one customer another customer's order history, privacy incident in prod",
    "prod login is broken for everyone after the {thing} rotation, {impact}",
    "{Svc} payments webhook rejected since {time}, paid orders stay unpaid, customers are charged",
    "UP → DOWN: {site} unreachable from all regions for {min} minutes",
  ],
  nonProduction: [
    "[CRITICAL] {Svc} {envtag} returns 500 on every request since the {time} deploy",
    "{envtag}: {thing} for {svc} expired, that environment cannot call the provider",
    "{scanner}: {cves} vulnerable packages in the {svc} {envtag} image",
    "{who}: the {envtag} database for {svc} is down again, nobody can test",
    "{envtag} {site} unreachable from all probes for {min} minutes",
    "orders placed on {envtag} since {time} are missing from its database",
  ],
  degraded: [
    "{Svc} prod p99 latency {ms}ms for {min}m, requests succeed but slowly",
    "{job} job in prod {batch}, the reports are late, no customer impact yet",
    "{Svc} prod error rate {small}% over {min}m, above the SLO, customers mostly unaffected",
    "{who}: the admin export for {svc} has been timing out since yesterday, can someone look this week",
  ],
};
