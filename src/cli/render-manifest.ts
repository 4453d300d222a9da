import type { CliContext } from "./cli-context.js";
import type { PlanIssue } from "../errors/plan-validation-error.js";
import type { RunManifest } from "../plan/run-manifest.js";
import type { RunStatus } from "../store/run-state.js";
import { EXIT } from "./exit-codes.js";
import { toolSourcesOf, type RunFlags } from "../compose/index.js";

/** The exit code for a run's status. */
export function exitCodeFor(status: RunStatus): number {
  switch (status) {
    case "completed":
      return EXIT.completed;
    case "partial":
      return EXIT.partial;
    case "escalated":
      return EXIT.escalated;
    case "interrupted":
      return EXIT.interrupted;
    default:
      return EXIT.failed;
  }
}

/**
 * A short human summary of a manifest. `storePath`: the store to name in the resume hints; `false` when the run
 * was kept in memory (`--no-store`), so there is nothing to resume and no hint is printed.
 */
export function renderManifest(
  m: RunManifest,
  storePath?: string | false,
  tools: readonly string[] = [],
): string {
  const lines = [`run ${m.runId} (${m.plan}): ${m.status}`];
  for (const [id, n] of Object.entries(m.nodes)) {
    const items = n.items
      ? ` items ${n.items.ok}/${n.items.total} ok` +
        (n.items.error ? `, ${n.items.error} failed` : "") +
        (n.items.skipped ? `, ${n.items.skipped} skipped` : "") +
        (n.items.escalated ? `, ${n.items.escalated} escalated` : "") +
        (n.items.reused ? `, ${n.items.reused} already stored` : "") +
        cachedItems(n.itemDetails)
      : "";
    const time = n.durationMs !== undefined ? ` ${n.durationMs} ms` : "";
    const cached = n.details?.cached === true ? " (cached)" : "";
    lines.push(`  ${pad(id, 24)} ${pad(n.status, 9)}${items}${cached}${time}`);
    for (const e of n.errors.slice(0, 3))
      lines.push(`      ${e.item !== undefined ? `item ${e.item}: ` : ""}${e.code}: ${e.message}`);
    if (n.errors.length > 3) lines.push(`      … and ${n.errors.length - 3} more errors (--json for all)`);
    for (const x of n.escalations.slice(0, 5)) {
      const at = x.item !== undefined ? ` item ${x.item}` : "";
      lines.push(
        x.kind === "approval"
          ? `      waits for approval${at}: ${x.call?.name ?? "?"} ${clip(JSON.stringify(x.call?.arguments ?? {}), 200)} — ${x.reason}`
          : `      escalated${at}: ${x.verdict} — ${x.reason}`,
      );
    }
    if (n.escalations.length > 5)
      lines.push(`      … and ${n.escalations.length - 5} more escalations (--json for all)`);
  }
  if (m.returns !== undefined && Object.hasOwn(m.artifacts, m.returns)) {
    lines.push(`  returns ${m.returns}: ${clip(JSON.stringify(m.artifacts[m.returns]) ?? "undefined", 400)}`);
  }
  if (m.error) lines.push(`  ${m.error.code}: ${m.error.message}`);
  const store = storePath ? ` --store ${storePath}` : "";
  // A resume loads only the tools it is given, so its command line names them again.
  const resume = `deputy resume ${m.runId}${store}${tools.map((t) => ` --tools ${shellArg(t)}`).join("")}`;
  if (storePath === false) return lines.join("\n") + "\n";
  if (m.status === "escalated") {
    const nodes = Object.entries(m.nodes);
    const decide = nodes.find(([, n]) => n.escalations.some((e) => e.kind !== "approval"))?.[0];
    const approve = nodes.find(([, n]) => n.escalations.some((e) => e.kind === "approval"))?.[0];
    if (decide !== undefined || approve === undefined)
      lines.push(
        `decide each escalation with: deputy resolve ${m.runId} ${decide ?? "NODE"} [--item N] (--call JSON | --value JSON | --skip)${store}`,
      );
    if (approve !== undefined)
      lines.push(
        `approve or reject a call:    deputy resolve ${m.runId} ${approve} [--item N] (--approve | --reject [--reason TEXT])${store}`,
      );
    lines.push(`then continue with:          ${resume}`);
  } else if (m.status === "interrupted") {
    lines.push(`continue where it stopped: ${resume}`);
  } else if (m.status === "failed" || m.status === "cancelled") {
    lines.push(`retry what did not complete: ${resume}`);
  }
  return lines.join("\n") + "\n";
}

/** Validation issues, one per line: `error   code [node] message`. */
export function renderIssues(issues: PlanIssue[]): string {
  return issues
    .map((i) => `${pad(i.severity, 7)} ${pad(i.code, 22)} ${i.nodeId ? `[${i.nodeId}] ` : ""}${i.message}`)
    .join("\n")
    .concat(issues.length ? "\n" : "");
}

/** `s`, or its first `n` characters and how many more there are (`--json` has the whole value). */
export function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n)}… (${s.length - n} more characters; --json for all)`;
}

/** A command-line argument as a shell reads it: quoted when it holds anything but plain path characters. */
function shellArg(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

/** Prints a finished run as the commands that run work do (the manifest, or JSON) and sets the exit code. */
export function printRunResult(
  ctx: CliContext,
  manifest: RunManifest,
  json: boolean | undefined,
  storeHint: string | false | undefined,
  tools: RunFlags["tools"] = undefined,
  events = false,
): void {
  // With --events, stdout holds JSON lines only: the manifest is the last one (`--json`), or the summary goes to
  // stderr.
  if (events) {
    if (json) ctx.stdout(JSON.stringify({ type: "manifest", manifest }) + "\n");
    else ctx.stderr(renderManifest(manifest, storeHint, toolSourcesOf(tools)));
  } else
    ctx.stdout(
      json
        ? JSON.stringify(manifest, null, 2) + "\n"
        : renderManifest(manifest, storeHint, toolSourcesOf(tools)),
    );
  ctx.setExitCode(exitCodeFor(manifest.status));
}

/** `, N from the cache` when items reused cached tool results (`cache: { ttl }`). */
function cachedItems(details: Record<number, Record<string, unknown>> | undefined): string {
  let n = 0;
  for (const d of Object.values(details ?? {})) if (d.cached === true) n++;
  return n ? `, ${n} from the cache` : "";
}

/** One run event as a JSON line (`--events`), its sequence number first. */
export function eventLine(event: { seq: number }): string {
  const { seq, ...rest } = event;
  return JSON.stringify({ seq, ...rest }) + "\n";
}
