import type { RunEvent } from "../plan/run-events.js";

/** One progress notification's numbers, as MCP's `notifications/progress` carries them. */
export interface RunProgress {
  /** Nodes finished, plus the finished share of each for_each node in flight (so items move it too). */
  progress: number;
  /** The plan's nodes. */
  total: number;
  /** In words: `nodes 1/3 · triage items 30/100`. */
  message: string;
}

/**
 * Turns a run's events into progress notifications for a client that asked for them (a `progressToken`): one
 * at every node's end, and one per for_each item only when the run moved by at least 1 % of its nodes since
 * the last one, so a 10 000-item node sends about a hundred, not ten thousand. Every notification's
 * `progress` is greater than the one before (the MCP spec requires it); nodes a failure blocks never end, so a
 * run that does not complete stops short of `total`.
 */
export function progressOfRun(send: (progress: RunProgress) => void): (event: RunEvent) => void {
  let total = 0;
  let finished = 0;
  const items = new Map<string, { done: number; total: number }>();
  let sent = -1;
  const report = (always: boolean) => {
    let progress = finished;
    for (const i of items.values()) progress += i.total > 0 ? i.done / i.total : 0;
    // A for_each node's last item brings it to 1, and its end then adds nothing: never send the same number.
    if (progress <= sent || (!always && progress - sent < total / 100)) return;
    sent = progress;
    const parts = [...items].map(([id, i]) => ` · ${id} items ${i.done}/${i.total}`).join("");
    send({ progress, total, message: `nodes ${finished}/${total}${parts}` });
  };
  return (event) => {
    if (event.type === "run-start") total = event.nodes;
    else if (event.type === "node-end") {
      finished++;
      items.delete(event.nodeId);
      report(true);
    } else if (event.type === "item-end") {
      items.set(event.nodeId, { done: event.done, total: event.total });
      report(false);
    }
  };
}
