import type { ComponentChildren } from "preact";
import { show } from "./text.js";
import type { Counts } from "./types.js";

const STATUSES = new Set([
  "pending",
  "running",
  "ok",
  "partial",
  "skipped",
  "error",
  "blocked",
  "escalated",
  "completed",
  "failed",
  "cancelled",
  "done",
]);

/** A status as a coloured badge (only known statuses become a class name). */
export function Status({ status }: { status: string }) {
  return <span class={`badge s-${STATUSES.has(status) ? status : "unknown"}`}>{show(status)}</span>;
}

/** Untrusted data as preformatted text. */
export function Pre({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre class="data" aria-label={label}>
      {show(value)}
    </pre>
  );
}

/** A labelled block. */
export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="card">
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** for_each progress as a stacked bar and numbers. */
export function Progress({ total, counts }: { total?: number; counts: Counts }) {
  const done = (counts.ok ?? 0) + (counts.error ?? 0) + (counts.skipped ?? 0) + (counts.escalated ?? 0);
  const of = total ?? done;
  const pct = (n: number | undefined) => (of ? `${(100 * (n ?? 0)) / of}%` : "0%");
  return (
    <span class="progress" title={`${done} of ${of} items`}>
      <span class="bar">
        <span class="seg s-ok" style={{ width: pct(counts.ok) }} />
        <span class="seg s-skipped" style={{ width: pct(counts.skipped) }} />
        <span class="seg s-escalated" style={{ width: pct(counts.escalated) }} />
        <span class="seg s-error" style={{ width: pct(counts.error) }} />
      </span>
      <span class="nums">
        {done}/{of}
        {counts.escalated ? ` · ${counts.escalated} escalated` : ""}
        {counts.error ? ` · ${counts.error} failed` : ""}
      </span>
    </span>
  );
}

export function Loading({ error }: { error?: string | undefined }) {
  return error ? <p class="error">{show(error)}</p> : <p class="muted">Loading…</p>;
}
