// Alert sentences in the styles real sources use — Alertmanager, Datadog, CloudWatch, Sentry, PagerDuty — and
// people in chat (terse, verbose, lower-case), for generate.mjs's `styled.jsonl`. They were written from how these
// systems format their notifications, not from the hand-written sets (handwritten.tsv, escalations.tsv), which no
// template copies. Slots are filled by generate.mjs; `typo` misspells a word of some sentences afterwards.

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
  };
}

/** Templates per family (the families of generate.mjs), several per source. */
export const STYLED = {
  outage: [
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
    "[FIRING:1] KubePodCrashLooping ({svc}, namespace {envtag}) - pod restarting repeatedly",
    "Datadog [Warn] {svc} on env:{envtag} - {issue}",
    'ALARM: "{envtag}-{svc}-cpu" in {az} - {issue}',
    "Sentry (env: {envtag}): {exc} in {svc} - {n} events",
    "{env} {svc} {issue} again",
    "{envtag} {svc} {issue}",
    "{svc} on the {env} box: {issue}",
    "PD #{pd} TRIGGERED: [{envtag}] {svc} {issue}",
    "the {envtag} deploy of {svc} is broken, {issue} - not prod",
  ],
  resolved: [
    "[RESOLVED] {Svc}HighLatency ({svc}-api production) - {recovered}",
    "Datadog [Recovered] {svc}: {blip}, {recovered}",
    'CloudWatch: alarm "{svc}-5xx" changed from ALARM to OK - {blip}',
    "PD #{pd} RESOLVED: {Svc} {blip} (auto-resolved)",
    "Sentry: issue {exc} in {svc} marked resolved, no new events since {time}",
    "never mind, {svc} {recovered}",
    "{svc} had {blip} but it {recovered}",
    "[OK] {svc} health check passing again after {blip}",
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
