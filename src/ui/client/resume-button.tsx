import { useState } from "preact/hooks";
import { api } from "./api.js";
import { show } from "./text.js";

/** Starts resuming a run in the console's process; the run page then shows it progress. */
export function ResumeButton({ runId, onStarted }: { runId: string; onStarted?: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const resume = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await api.post(`/api/runs/${encodeURIComponent(runId)}/resume`, {});
      onStarted?.();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span class="resume">
      <button type="button" class="primary" disabled={busy} onClick={() => void resume()}>
        Resume run
      </button>
      {error ? <span class="error">{show(error)}</span> : null}
    </span>
  );
}
