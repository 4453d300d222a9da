import { Loading, Progress, Section, Status } from "./parts.js";
import { ResumeButton } from "./resume-button.js";
import { RunGraph } from "./run-graph.js";
import { duration, show, usd, when } from "./text.js";
import type { RepairDelta, RepairSummary, ResumeState, RunLineage, RunView } from "./types.js";
import { useData } from "./use-data.js";
import { useLive } from "./use-live.js";

type RunAnswer = RunView & {
  lineage: RunLineage;
  resume: ResumeState | null;
  traces: boolean;
  /** A plan `deputy plan` wrote: what it was asked for, and by which model. */
  authored?: { objective: string; model: string };
  /** A repair child: the parent's repair that made it, with its delta. */
  madeBy?: MadeByRepair;
};
type MadeByRepair = RepairSummary & RepairDelta & { diffText: string };

/** One run: its plan as a live graph, its nodes, spend and escalations. */
export function RunPage({ runId }: { runId: string }) {
  const id = encodeURIComponent(runId);
  const { data, error, reload } = useData<RunAnswer>(`/api/runs/${id}`, {
    poll: (r) => r.status === "running" || r.resume?.state === "running",
    pollMs: 700,
  });
  // Live: the page reloads its data when the run changes, whoever runs it (no page reload).
  const live = useLive(runId, reload);
  if (!data) return <Loading error={error} />;
  const resumable = ["escalated", "failed", "partial", "cancelled", "interrupted"].includes(data.status);
  return (
    <>
      <h1>
        {show(data.planName)} <Status status={data.status} />{" "}
        <span class="live muted" data-connected={String(live.connected)} data-seq={live.lastSeq ?? ""}>
          {live.connected ? "live" : ""}
        </span>
      </h1>
      {data.objective ? <p class="muted">{show(data.objective)}</p> : null}
      <dl class="facts">
        <dt>Run</dt>
        <dd>{show(data.runId)}</dd>
        <dt>Started</dt>
        <dd>{when(data.createdAt)}</dd>
        <dt>Duration</dt>
        <dd>{duration(data.durationMs)}</dd>
        <dt>Items</dt>
        <dd>{data.items.total ? <Progress total={data.items.total} counts={data.items.counts} /> : "–"}</dd>
        <dt>Spend</dt>
        <dd>
          {usd(data.spend.cost)} · {data.spend.calls} calls · {data.spend.tokens} tokens
        </dd>
        {data.authored ? (
          <>
            <dt>Written by</dt>
            <dd class="authored-model">{show(data.authored.model)}</dd>
            <dt>Written for</dt>
            <dd class="authored-objective">{show(data.authored.objective)}</dd>
          </>
        ) : null}
        <Lineage lineage={data.lineage} runId={runId} />
        {data.madeBy ? <MadeBy made={data.madeBy} /> : null}
      </dl>
      <p class="actions">
        {data.escalated ? (
          <a class="flag" href={`#/inbox?runId=${id}`}>
            {data.escalated} escalation{data.escalated === 1 ? "" : "s"} to decide
          </a>
        ) : null}
        {data.traces ? <a href={`#/traces?runId=${id}`}>Traces</a> : null}
        {resumable && data.resume?.state !== "running" ? (
          <ResumeButton runId={runId} onStarted={reload} />
        ) : null}
        {data.resume ? (
          <span class="resume-state" data-state={data.resume.state}>
            Resume {data.resume.state}
            {data.resume.status ? ` (run ${data.resume.status})` : ""}
            {data.resume.error ? `: ${show(data.resume.error.message)}` : ""}
          </span>
        ) : null}
      </p>
      {data.error ? <p class="error">{show(data.error.message)}</p> : null}
      <Section title="Plan">
        <div class="graph-wrap">
          <RunGraph runId={runId} nodes={data.nodes} />
        </div>
      </Section>
      <Section title="Nodes">
        <table class="grid nodes">
          <thead>
            <tr>
              <th>Node</th>
              <th>Type</th>
              <th>Status</th>
              <th>Items</th>
              <th>Attempts</th>
              <th>Duration</th>
              <th>Spend</th>
              <th>Error</th>
            </tr>
          </thead>
          <tbody>
            {data.nodes.map((n) => (
              <tr key={n.id} data-node={n.id}>
                <td>
                  <a href={`#/runs/${id}/nodes/${encodeURIComponent(n.id)}`}>{show(n.id)}</a>
                </td>
                <td>{n.type}</td>
                <td>
                  <Status status={n.status} />
                </td>
                <td>{n.items ? <Progress total={n.items.total} counts={n.items.counts} /> : "–"}</td>
                <td>{n.attempts}</td>
                <td>{duration(n.durationMs)}</td>
                <td>{n.spend ? `${usd(n.spend.cost)} · ${n.spend.tokens} tok` : "–"}</td>
                <td class="err">{n.error ? show(n.error.message) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Section>
    </>
  );
}

const link = (runId: string) => `#/runs/${encodeURIComponent(runId)}`;

/** The run a repaired run came from, and the repairs asked for this one (each applied one's child run). */
function Lineage({ lineage, runId }: { lineage: RunLineage | undefined; runId: string }) {
  if (!lineage || (!lineage.parentRunId && lineage.repairs.length === 0)) return null;
  return (
    <>
      {lineage.parentRunId ? (
        <>
          <dt>Repair of</dt>
          <dd class="lineage-parent">
            <a href={link(lineage.parentRunId)}>{show(lineage.parentRunId)}</a>
            {lineage.rootRunId && lineage.rootRunId !== lineage.parentRunId ? (
              <>
                {" "}
                (first run <a href={link(lineage.rootRunId)}>{show(lineage.rootRunId)}</a>)
              </>
            ) : null}
          </dd>
        </>
      ) : null}
      {lineage.repairs.length ? (
        <>
          <dt>Repairs</dt>
          <dd>
            <ul class="lineage-repairs">
              {lineage.repairs.map((r) => (
                <li key={r.id} data-repair={r.id} data-status={r.status}>
                  {show(r.id)}: {show(r.status)}
                  {r.decidedBy ? ` by ${show(r.decidedBy)}` : ""}
                  {r.childRunId ? (
                    <>
                      {" → "}
                      <a href={link(r.childRunId)}>{show(r.childRunId)}</a>
                    </>
                  ) : null}
                  {r.status === "pending" ? (
                    <>
                      {" "}
                      <a class="flag" href={`#/inbox?runId=${encodeURIComponent(runId)}`}>
                        decide
                      </a>
                    </>
                  ) : null}
                </li>
              ))}
            </ul>
          </dd>
        </>
      ) : null}
    </>
  );
}

/** A repair child's delta: the repair that made it, its model, and each change (model text: shown as text). */
function MadeBy({ made }: { made: MadeByRepair }) {
  return (
    <>
      <dt>Made by</dt>
      <dd class="made-by" data-repair={made.id}>
        repair {show(made.id)}
        {made.model ? ` from ${show(made.model)}` : ""}: replaced {show(made.nodes.join(", ") || "no node")}
        <pre class="data made-by-diff">{show(made.diffText)}</pre>
      </dd>
    </>
  );
}
