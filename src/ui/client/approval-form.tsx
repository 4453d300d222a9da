import { useState } from "preact/hooks";
import { api } from "./api.js";
import { show } from "./text.js";
import type { InboxEntry } from "./types.js";

/**
 * A person's yes or no to a call that waits for approval: approve (it runs when the run resumes, exactly the call
 * shown above) or reject with an optional reason (it never runs; the node fails with the reason). Posted to the
 * same resolve route as every decision.
 */
export function ApprovalForm({ entry, by, onDone }: { entry: InboxEntry; by: string; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [reason, setReason] = useState("");
  const decide = async (kind: "approve" | "reject") => {
    if (!by.trim()) return setError("Enter your name first: decisions are recorded with who made them.");
    setBusy(true);
    setError(undefined);
    try {
      await api.post(`/api/runs/${encodeURIComponent(entry.runId)}/resolve`, {
        nodeId: entry.nodeId,
        ...(entry.item === undefined ? {} : { item: entry.item }),
        by: by.trim(),
        [kind]: true,
        ...(kind === "reject" && reason.trim() ? { reason: reason.trim() } : {}),
      });
      onDone();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="decision approval">
      <p class="actions">
        <button type="button" class="primary" disabled={busy} onClick={() => void decide("approve")}>
          Approve the call
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
    </div>
  );
}
