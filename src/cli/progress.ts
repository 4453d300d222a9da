import type { RunEvent } from "../plan/run-events.js";

/**
 * A one-line live progress display on a terminal (stderr): nodes done of total, and the items of the for_each
 * nodes in flight. Redrawn at most ten times a second.
 */
export function createProgress(write: (text: string) => void): {
  onEvent: (e: RunEvent) => void;
  done(): void;
} {
  let total = 0;
  let finished = 0;
  const items = new Map<string, { done: number; total: number }>();
  let last = 0;
  let drawn = false;
  const draw = (force = false) => {
    const now = Date.now();
    if (!force && now - last < 100) return;
    last = now;
    const parts = [...items].map(([id, c]) => `${id} ${c.done}/${c.total}`);
    write(`\r\x1b[K  nodes ${finished}/${total}${parts.length ? ` · items ${parts.join(" · ")}` : ""}`);
    drawn = true;
  };
  return {
    onEvent(e) {
      if (e.type === "run-start") total = e.nodes;
      else if (e.type === "node-end") {
        finished++;
        items.delete(e.nodeId);
        draw(true);
      } else if (e.type === "item-end") {
        items.set(e.nodeId, { done: e.done, total: e.total });
        draw();
      }
    },
    done() {
      if (drawn) write("\r\x1b[K");
    },
  };
}

/** Seconds as `42 s`, `3 min 05 s` or `1 h 12 min`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

/**
 * A one-line live progress bar on a terminal (stderr) for work counted in units: `label [████░░░░] 120/812 ·
 * 2 min 10 s left`, the time left extrapolated from the pace so far. Redrawn at most ten times a second.
 */
export function createProgressBar(
  write: (text: string) => void,
  label: string,
): { update(done: number, total: number): void; done(): void } {
  const started = Date.now();
  let last = 0;
  let drawn = false;
  return {
    update(done, total) {
      const now = Date.now();
      if (done < total && now - last < 100) return;
      last = now;
      const width = 24;
      const filled = total > 0 ? Math.round((width * Math.min(done, total)) / total) : width;
      const elapsed = (now - started) / 1000;
      const left = done > 0 ? formatDuration((elapsed / done) * (total - done)) : "…";
      write(
        `\r\x1b[K  ${label} [${"█".repeat(filled)}${"░".repeat(width - filled)}] ${done}/${total} · ${left} left`,
      );
      drawn = true;
    },
    done() {
      if (drawn) write("\r\x1b[K");
    },
  };
}
