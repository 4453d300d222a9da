// Alert sentences from monitoring sources styles.mjs does not cover — uptime checkers (UptimeRobot, Uptime Kuma,
// Pingdom, StatusCake, Checkly, Healthchecks.io), status pages, New Relic, Grafana, Azure Monitor, Google Cloud,
// Zabbix, Nagios, AWS Health and Trusted Advisor, Splunk On-Call — and the notices people forward from them, for
// generate.mjs's `sources.jsonl`. Written from how these systems word their notifications; what they add over
// styles.mjs is mostly the *state words* each source uses ("Monitor is UP … It was down for", "[UP] … is back
// online", "failover completed", "marked Resolved", capacity forecasts and advisor recommendations), which the
// development sets showed the models reading as pages (docs/learning.md, "A third recipe"). No template copies
// a hand-written set (validation-split.test.ts checks runs of ten words).

const SITES = ["shop", "status", "api", "app", "checkout", "www", "login", "store", "pay", "account"];

/** Extra slot fillers (given generate.mjs's `pick` and `int`). */
export function sourceSlots(pick, int) {
  return {
    site: () => `${pick(SITES)}.example.com`,
    k: () => String(int(2, 12)),
    dur: () =>
      pick([
        `${int(1, 9)} minutes and ${int(1, 59)} seconds`,
        `${int(1, 15)} minutes`,
        `${int(20, 59)} seconds`,
        `${int(1, 3)} hours`,
      ]),
    upstate: () =>
      pick([
        "is back online",
        "is UP again",
        "is up",
        "recovered",
        "is reachable again",
        "is responding normally",
        "is operational",
      ]),
    steady: () =>
      pick([
        "all healthy now",
        "no errors since",
        "stable since then",
        "nothing lost",
        "serving traffic again",
        "back within limits",
        "no action needed",
      ]),
  };
}

/** Templates per family (the families of generate.mjs). */
export const SOURCES = {
  outage: [
    "UptimeRobot: Monitor is DOWN: {site}. Reason: Connection Timeout. {Impact}",
    "Uptime Kuma: [DOWN] {site} - {harm}",
    "Pingdom alert: {site} is DOWN since {time} UTC, {impact}",
    "StatusCake: {site} is down (HTTP 502 from {k} locations), {harm}",
    "Checkly: browser check '{Svc} checkout - prod' failed in {k} of {k} locations, step {k} returns 503",
    "Statuspage: major outage declared for {Svc}, {harm}",
    "New Relic: Critical violation opened - {svc} prod error rate {pct}%, {impact}",
    "Grafana [Alerting] {Svc} prod: {impact} for {min}m",
    "Azure Monitor Sev0 Fired: {svc}-prod availability below 50%, {impact}",
    "Google Cloud uptime check for {site} failing from every region: {harm}",
    "Zabbix PROBLEM (Disaster): {svc} on prod {host} unavailable, {impact}",
    "Nagios PROBLEM: prod {svc} is CRITICAL - {harm}",
    "[FIRING:{k}] {Svc}DataLoss env=prod - {n} writes dropped, {impact}",
    "prod Kafka consumer for {svc} events skipped {n} messages, they are gone for good",
    "restore test: the prod {svc} database backups of the last {k} days are empty, nothing to restore from",
    "Splunk On-Call CRITICAL: {svc} production {down}, {impact}",
    "security scan: prod {svc} storage bucket is public, customer records readable by anyone",
    "prod TLS certificate for {site} expired {min} minutes ago, browsers refuse the site",
    "AWS Health: issue in {az} affecting our prod {svc} instances, {harm}",
    "{site} {down} from {region}, {impact}, someone please page",
  ],
  degraded: [
    "New Relic: Warning violation - {svc} prod apdex below target, {drift}",
    "Grafana [Alerting] {Svc} prod p95 {ms}ms for {min}m, every request still succeeds",
    "Azure Monitor Sev3 Fired: {svc}-prod {drift}",
    "Zabbix PROBLEM (Warning): free disk space on {host} is {pct}% and shrinking",
    "Healthchecks.io: '{sjob}' is LATE, last ping {k} hours ago",
    "Checkly: API check '{svc} search' degraded ({ms}ms over the {ms}ms limit), still passing",
    "Pingdom: {site} response time up to {ms}ms today, site stays up",
    "prod {svc} pages take {secs}s to load today, slow but everything works",
    "Nagios WARNING: prod {host} load average high, services responding",
    "Splunk On-Call WARNING: {Sjob} {late}",
    "PagerDuty [Triggered] low urgency: prod {job} {batch}, customers waiting on the results",
    "Google Cloud: {svc}-prod memory {pct}% for {min}m, {drift}",
    "StatusCake: {site} slower than usual ({ms}ms average), no downtime",
    "Grafana [Alerting] {Sjob} {late} in prod",
  ],
  informational: [
    "AWS Trusted Advisor: {k} EC2 instances in prod had low utilization for {days} days, consider downsizing",
    "Grafana: capacity forecast - prod {svc} storage projected to reach {pct}% in about {days} days",
    "AWS Health: scheduled maintenance for {svc}-db in {az}, no action required",
    "Statuspage: scheduled maintenance for {Svc} completed",
    "Uptime Kuma: monthly report, {site} uptime 99.9%",
    "New Relic: deployment {ver} of {svc} recorded",
    "Azure Advisor: recommendation to turn on autoscale for {svc}-prod",
    "Checkly: {k} checks added to the '{Svc}' group",
    "Zabbix: agent on {host} updated to {ver}",
    "Healthchecks.io weekly report: all {k} checks up",
    "cert-manager: certificate for {site} renewed, valid {days} more days",
    "Google Cloud: recommendation to delete {k} idle disks in project prod",
    "Pingdom weekly summary: {site} response times normal",
    "New Relic: {svc} SLO met for the month, error budget {pct}% left",
  ],
  nonProduction: [
    "UptimeRobot: Monitor is DOWN: {envtag}.{site}. Reason: Connection Timeout",
    "Uptime Kuma: [DOWN] {envtag}-{svc} - {issue}",
    "New Relic: Critical violation opened - {svc} ({envtag}) error rate {pct}%",
    "Grafana [Alerting] {Svc} {envtag}: {harm}",
    "Azure Monitor Sev0 Fired: {svc}-{envtag} unavailable",
    "Checkly: browser check '{Svc} login - {envtag}' failed in all locations",
    "Zabbix PROBLEM (Disaster): {svc} on {envtag}-{host} unavailable",
    "Nagios PROBLEM: {envtag} {svc} is CRITICAL - {issue}",
    "{envtag} Kafka consumer for {svc} skipped {n} messages",
    "[FIRING:1] {Svc}DataLoss env={envtag} - {n} writes dropped",
    "Google Cloud: {svc}-{envtag} Cloud SQL failover started",
    "restore test on {envtag}: {svc} backups empty",
    "Pingdom alert: {envtag}.{site} is DOWN since {time} UTC",
    "Splunk On-Call CRITICAL: {svc} {envtag} {down}",
  ],
  resolved: [
    "UptimeRobot: Monitor is UP: {site}. It was down for {dur}",
    "Uptime Kuma: [UP] {site} {upstate}",
    "Pingdom: {site} is UP again after {dur} of downtime",
    "StatusCake: {site} {upstate} (down for {dur})",
    "Statuspage: incident '{Svc} errors' marked Resolved, {steady}",
    "Checkly: check '{Svc} login' recovered, passing in all locations",
    "New Relic: Critical violation closed - {svc} error rate back under threshold",
    "Grafana [OK] {Svc} prod: {cleared}",
    "Azure Monitor Sev1 Resolved: {svc}-prod availability back to 100%",
    "Google Cloud: {svc}-prod Cloud SQL failover completed, {steady}",
    "Zabbix RESOLVED in {min}m: {svc} on {host} unavailable",
    "Nagios RECOVERY: prod {host} {svc} is OK - {cleared}",
    "Healthchecks.io: '{sjob}' is UP again, the latest ping arrived on time",
    "Splunk On-Call RECOVERY: {svc} {blip}, {steady}",
    "prod {svc} went down and came back within {secs}s, one occurrence, {steady}",
    "Kafka broker {k} restarted and rejoined, replication caught up, {steady}",
    "the {svc} alert from {time} stopped firing by itself, {steady}",
    "[RESOLVED] {Svc}Down env=prod - {site} {upstate} after {dur}",
    "AWS Health: the {az} issue affecting {svc} is resolved, {steady}",
  ],
};
