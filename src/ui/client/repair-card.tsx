import { useState } from "preact/hooks";
import { api } from "./api.js";
import { Pre } from "./parts.js";
import { show, when } from "./text.js";
import type { RepairEntry } from "./types.js";

/**
 * A pending repair: why the nodes failed, the model's change as a diff (its text, never markup), and the
 * person's decision — approve (the delta runs as a child run, and the page moves to it) or reject with a reason.
 */
export function RepairCard({ entry, by, onDone }: { entry: RepairEntry; by: string; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [reason, setReason] = useState("");
  const base = `/api/runs/${encodeURIComponent(entry.runId)}/repairs/${encodeURIComponent(entry.repairId)}`;
  const decide = async (kind: "approve" | "reject") => {
    if (!by.trim()) return setError("Enter your name above: it is recorded with the decision.");
    setBusy(true);
    setError(undefined);
    try {
      const body = kind === "reject" && reason.trim() ? { by, reason } : { by };
      const answer = await api.post<{ childRunId?: string }>(`${base}/${kind}`, body);
      if (answer.childRunId) location.hash = `#/runs/${encodeURIComponent(answer.childRunId)}`;
      else onDone();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <article class="card repair" data-repair={entry.repairId}>
      <h3>
        Repair {show(entry.repairId)} · round {entry.round}
        {entry.model ? <span class="muted"> · by {show(entry.model)}</span> : null}
      </h3>
      <h4>Failed nodes</h4>
      <ul class="failed">
        {entry.failed.map((f) => (
          <li key={f.nodeId} data-node={f.nodeId}>
            {show(f.nodeId)} ({show(f.status)}){f.error ? `: ${show(f.error)}` : ""}
          </li>
        ))}
      </ul>
      <h4>The model's change</h4>
      <Pre value={entry.diffText} label="diff" />
      <p class="actions">
        <button type="button" class="primary" disabled={busy} onClick={() => void decide("approve")}>
          Approve and run
        </button>
        <input
          name="reason"
          value={reason}
          placeholder="why not (optional)"
          onInput={(e) => setReason((e.target as HTMLInputElement).value)}
        />
        <button type="button" disabled={busy} onClick={() => void decide("reject")}>
          Reject
        </button>
      </p>
      {error ? (
        <p class="error" role="alert">
          {show(error)}
        </p>
      ) : null}
      <p class="muted small">Asked {when(entry.createdAt)}</p>
    </article>
  );
}
