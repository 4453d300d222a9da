// Alert sentences in the styles real sources use — Alertmanager, Datadog, CloudWatch, Sentry, PagerDuty — and
// people in chat (terse, verbose, lower-case), for generate.mjs's `styled.jsonl`. They were written from how these
// systems format their notifications, not from the hand-written sets (handwritten.tsv, escalations.tsv), which no
// template copies. Slots are filled by generate.mjs; `typo` misspells a word of some sentences afterwards.

const JOBS = [
  "payouts reconciliation",
  "sitemap generation",
  "loyalty points",
  "seller CSV import",
  "nightly export",
  "stock sync",
  "model retrain",
  "newsletter send",
  "backup verification",
  "log shipping",
  "analytics rollup",
  "billing run",
  "price feed import",
  "GDPR deletion",
  "shipping label batch",
  "cache warmup",
];

/** Extra slot fillers (given generate.mjs's `pick` and `int`). */
export function styleSlots(pick, int) {
  return {
    n: () => String(int(2, 9000)),
    ms: () => String(int(2, 40) * 50),
    pd: () => String(int(10000, 99999)),
    az: () =>
      pick([
        "EU (Ireland)",
        "US East (N. Virginia)",
        "US West (Oregon)",
        "Asia Pacific (Sydney)",
        "EU (Frankfurt)",
      ]),
    exc: () =>
      pick([
        "TimeoutError",
        "ConnectionResetError",
        "NullPointerException",
        "KeyError: 'user_id'",
        "TypeError: Cannot read properties of undefined",
        "OperationalError: could not connect to server",
        "RedisTimeoutError",
        "HTTPError 503",
      ]),
    envtag: () => pick(["staging", "stage", "dev", "qa", "uat", "sandbox", "test", "preview"]),
    prio: () => pick(["P1", "P2"]),
    lowprio: () => pick(["P3", "P4", "P5"]),
    // Wider vocabulary than generate.mjs's shared pools (which train.jsonl and heldout.jsonl keep as they were).
    sjob: () => pick(JOBS),
    Sjob: () => {
      const j = pick(JOBS);
      return j[0].toUpperCase() + j.slice(1);
    },
    late: () =>
      pick([
        `ran ${int(2, 6)} hours late`,
        `took ${int(2, 5)}x longer than usual`,
        `is ${int(10, 90)} min behind`,
        "did not run last night",
        `failed for ${int(2, 40)} records, rest went through`,
        "timed out, needs a manual rerun",
        `is taking ${int(30, 90)} min instead of ${int(5, 15)}`,
        "skipped its last two runs",
      ]),
    drift: () =>
      pick([
        `memory creeping up ${int(2, 9)}% a day`,
        `consumer lag ${int(100, 900)}k and slowly growing`,
        `p99 ${int(2, 9)}s, no errors`,
        "connection pool near its limit at peak",
        `timeouts on ${int(1, 4)}% of calls, retries succeed`,
        "cache hit rate down, pages a bit slower",
        `heap at ${int(80, 95)}%, GC pauses longer`,
        "a deprecation warning logged thousands of times a day",
      ]),
    harm: () =>
      pick([
        "customers charged twice",
        "customers see other customers' data",
        "nobody can sign in",
        "orders are lost",
        "every payment is declined",
        "the site shows a blank page",
        "refunds are not going out",
        "carts empty on reload",
      ]),
    event: () =>
      pick([
        `autoscaling group scaled from ${int(4, 12)} to ${int(13, 30)} instances`,
        "dashboard was updated",
        "DR drill completed as planned",
        "feature flag rolled out to 10% of users",
        "monthly SLO report is ready",
        "on-call schedule changed for next week",
        "API keys rotated as planned",
        "maintenance window started",
      ]),
    cleared: () =>
      pick([
        "cleared after a restart",
        "is healthy again",
        "back under threshold",
        "fixed itself",
        "went away after a minute",
        "not seen since",
      ]),
  };
}

/** Templates per family (the families of generate.mjs), several per source. */
export const STYLED = {
  outage: [
    "[FIRING:1] {Svc}Unavailable ({svc} prod) - {harm}",
    "Datadog [Triggered] [{prio}] {svc} - {harm} since {time}",
    'CloudWatch ALARM "{svc}-errors" in {az}: {harm}',
    "Opsgenie alert {prio}: {svc} {down}, {harm}",
    "help, {harm}, {svc} looks broken",
    "{Svc} incident: {harm}. Started around {time}, affects all regions",
    "Sentry: {n} users hit {exc} in {svc}-web, {harm}",
    "[FIRING:1] {Svc}Down ({svc}-api production critical) - up == 0 for {min}m; {impact}",
    "[FIRING:{small}] HighErrorRate {svc}-api: 5xx ratio {pct}% over 5m - {impact}",
    "[Triggered] [{prio}] {svc} availability {pct}% is below the SLO - {impact}",
    "Datadog monitor [Triggered] {svc}.errors above critical threshold in {region}: {impact}",
    'ALARM: "{svc}-5xx-errors" in {az} - Threshold Crossed: {n} errors > 50 for 3 datapoints. {Impact}',
    "Sentry: {exc} in {svc}-web spiking ({n} events, {n} users affected in 10 min) - {impact}",
    "PD #{pd} TRIGGERED: {Svc} {down} - {impact} (Service: {Svc}, Escalation: Primary)",
    "pagerduty incident {pd} triggered: {svc} outage in {region}, {impact}",
    "anyone seeing this? {svc} {down} and {impact}",
    "{svc} down!! {impact}, pls page someone",
    "{svc} {down} in {region}",
    "urgent: {impact} since {time}, {svc} dashboards all red",
    "We are getting a flood of support tickets: {impact}. Looks like {svc} {down} for a large share of users since about {time}.",
  ],
  degraded: [
    "the {sjob} job {late}",
    "Datadog [Warn] {sjob} {late}",
    "[FIRING:1] {Svc}SlowButServing ({svc} prod) - {drift}",
    'CloudWatch ALARM "{svc}-latency" - {drift}, service still up',
    "{svc}: {drift}",
    "can someone look at the {sjob} job, it {late}",
    "Sentry: {svc}-worker {drift}, no user impact",
    "{Sjob} {late} again, please ticket it",
    "[FIRING:1] {Svc}HighLatency ({svc}-api production warning) - {slow} for {min}m, error rate normal",
    "[Warn] [{lowprio}] {svc} p95 latency {ms}ms above the {ms}ms warning threshold",
    "Datadog [Triggered] [{lowprio}] {job} job {batch}",
    'ALARM: "{svc}-queue-age" in {az} - {slow}, no errors',
    'CloudWatch alarm "{job}-duration" in ALARM: the {job} job {batch}',
    "Sentry: new issue {exc} in {svc}-worker, {n} events per day, no user-facing errors",
    "Crashlytics: Android {ver} {crash}",
    "hey, the {job} job {batch} again, can someone look at it when you get a chance",
    "{svc} feels slow today, {slow}",
    "{job} {batch}, needs a rerun",
    "disk on {host} at {pct}%, growing about 1% a day",
    "Ticket please: {svc} {slow} since yesterday's release {ver}, customers not blocked",
    "{Svc} has been degraded for a while now: {slow}. Nothing is down and orders still go through, but it should be looked at this week.",
  ],
  informational: [
    "Datadog event: {event}",
    "[Info] {Svc}: {event}",
    "fyi {event}, nothing to do",
    'PagerDuty: {event} for Service "{Svc}"',
    "{Sjob} job completed on schedule",
    "[Info] {Svc} deploy {ver} {fyi}",
    "Datadog event: {job} {fyi}",
    "AWS Backup: backup job for {svc}-db {fyi}",
    "PD #{pd} (informational): planned maintenance of {svc} starts at {time}, no action needed",
    "fyi {svc} {ver} is out, {fyi}",
    "Reminder: the certificate for {svc}.example.com {fyi}",
    "Heads up: scheduled maintenance on {svc} at {time}, nothing to do",
    "[Notice] {job} {fyi}",
    "Weekly report: {svc} uptime 99.9% last week, {job} {fyi}",
  ],
  nonProduction: [
    "{envtag}: {sjob} job {late}",
    "[FIRING:1] {Svc}Down ({svc}, env={envtag}) - {harm} in {envtag} only",
    "Datadog [Triggered] {svc} on env:{envtag} - {drift}",
    "{envtag} env {down}, QA blocked",
    "[FIRING:1] KubePodCrashLooping ({svc}, namespace {envtag}) - pod restarting repeatedly",
    "Datadog [Warn] {svc} on env:{envtag} - {issue}",
    'ALARM: "{envtag}-{svc}-cpu" in {az} - {issue}',
    "Sentry (env: {envtag}): {exc} in {svc} - {n} events",
    "{env} {svc} {issue} again",
    "{envtag} {svc} {issue}",
    "{svc} on the {env} box: {issue}",
    "PD #{pd} TRIGGERED: [{envtag}] {svc} {issue}",
    "the {envtag} deploy of {svc} is broken, {issue} - not prod",
    // Staging rules are copies of production's: they carry the same severity and priority words.
    "[FIRING:1] {Svc}Down ({svc}-api {envtag} critical) - up == 0 for {min}m",
    "Datadog [Triggered] [{prio}] {svc} on env:{envtag} - {harm} in {envtag} only",
    'ALARM: "{envtag}-{svc}-5xx" in {az} - severity critical, {issue}',
    "Opsgenie alert {prio} [{envtag}]: {svc} {down}",
  ],
  resolved: [
    "[RESOLVED] {Svc}Down ({svc} prod) - {cleared}",
    "Datadog [Recovered] [{lowprio}] {svc} {cleared}",
    "the {sjob} alert from earlier {cleared}, ignore",
    "{Svc} {blip} at {time}, {cleared}",
    'OK: "{svc}-latency" in {az} {cleared}',
    "[RESOLVED] {Svc}HighLatency ({svc}-api production) - {recovered}",
    "Datadog [Recovered] {svc}: {blip}, {recovered}",
    'CloudWatch: alarm "{svc}-5xx" changed from ALARM to OK - {blip}',
    "PD #{pd} RESOLVED: {Svc} {blip} (auto-resolved)",
    "Sentry: issue {exc} in {svc} marked resolved, no new events since {time}",
    "never mind, {svc} {recovered}",
    "{svc} had {blip} but it {recovered}",
    "[OK] {svc} health check passing again after {blip}",
    // A resolved alert keeps the severity and priority it fired with.
    "[RESOLVED] {Svc}Down ({svc}-api production critical) - {cleared}",
    "Datadog [Recovered] [{prio}] {svc} - {harm} no longer, {recovered}",
    "PD #{pd} RESOLVED: [{prio}] {Svc} {down} - {cleared} (auto-resolved)",
    'OK: "{svc}-5xx-errors" in {az} (critical) {cleared}',
  ],
};

/** Misspells one longer word of a sentence (swaps two letters or drops one), as people type in a hurry. */
export function typo(text, random) {
  const words = text.split(" ");
  const candidates = words.flatMap((w, i) => (/^[a-z]{5,}$/.test(w) ? [i] : []));
  if (candidates.length === 0) return text;
  const i = candidates[Math.floor(random() * candidates.length)];
  const w = words[i];
  const k = 1 + Math.floor(random() * (w.length - 2));
  words[i] =
    random() < 0.5 ? w.slice(0, k) + w[k + 1] + w[k] + w.slice(k + 2) : w.slice(0, k) + w.slice(k + 1);
  return words.join(" ");
}
