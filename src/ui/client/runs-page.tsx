import { Loading, Progress, Status } from "./parts.js";
import { duration, show, usd, when } from "./text.js";
import type { RunRow } from "./types.js";
import { useData } from "./use-data.js";

/** Every run in the store, newest first; refreshed while any is running. */
export function RunsPage() {
  const { data, error } = useData<RunRow[]>("/api/runs", {
    poll: (rows) => rows.some((r) => r.status === "running"),
    pollMs: 2000,
  });
  if (!data) return <Loading error={error} />;
  if (data.length === 0) return <p class="muted">No runs in this store yet.</p>;
  return (
    <>
      <h1>Runs</h1>
      <table class="grid runs">
        <thead>
          <tr>
            <th>Run</th>
            <th>Plan</th>
            <th>Status</th>
            <th>Started</th>
            <th>Duration</th>
            <th>Nodes</th>
            <th>Items</th>
            <th>Cost</th>
          </tr>
        </thead>
        <tbody>
          {data.map((r) => (
            <tr key={r.runId}>
              <td>
                <a href={`#/runs/${encodeURIComponent(r.runId)}`}>{show(r.runId)}</a>
              </td>
              <td>
                {show(r.planName)}
                {r.parentRunId ? (
                  <span class="muted lineage">
                    {" "}
                    ← repair of{" "}
                    <a href={`#/runs/${encodeURIComponent(r.parentRunId)}`}>{show(r.parentRunId)}</a>
                  </span>
                ) : null}
              </td>
              <td>
                <Status status={r.status} />
                {r.escalated ? (
                  <a class="flag" href={`#/inbox?runId=${encodeURIComponent(r.runId)}`}>
                    {r.escalated} to decide
                  </a>
                ) : null}
                {r.pendingRepairs ? (
                  <a class="flag repair-flag" href={`#/inbox?runId=${encodeURIComponent(r.runId)}`}>
                    repair to decide
                  </a>
                ) : null}
              </td>
              <td>{when(r.createdAt)}</td>
              <td>{duration(r.durationMs)}</td>
              <td>
                {Object.entries(r.nodeCounts.byStatus)
                  .map(([s, n]) => `${n} ${s}`)
                  .join(", ")}
              </td>
              <td>{r.items.total ? <Progress total={r.items.total} counts={r.items.counts} /> : "–"}</td>
              <td>{usd(r.spend.cost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
