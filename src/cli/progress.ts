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
