import { useState } from "preact/hooks";
import { withQuery } from "./api.js";
import { ApprovalForm } from "./approval-form.js";
import { DecisionForm } from "./decision-form.js";
import { Loading, Pre, Status } from "./parts.js";
import { RepairCard } from "./repair-card.js";
import { ResumeButton } from "./resume-button.js";
import { show, when } from "./text.js";
import type { InboxEntry, RepairEntry } from "./types.js";
import { useData } from "./use-data.js";

const NAME = "deputy-decider";

/**
 * Every escalation and every pending repair across runs (or of one run), each with what is needed to decide
 * it, and resume per run.
 */
export function InboxPage({ runId }: { runId?: string | undefined }) {
  const { data, error, reload } = useData<InboxEntry[]>(withQuery("/api/inbox", { runId }));
  const repairs = useData<RepairEntry[]>(withQuery("/api/repairs", { runId }));
  const [by, setBy] = useState(() => localStorage.getItem(NAME) ?? "");
  if (!data || !repairs.data) return <Loading error={error ?? repairs.error} />;
  const runs = [...new Set(data.map((e) => e.runId))];
  const repairRuns = [...new Set(repairs.data.map((r) => r.runId))];
  return (
    <>
      <h1>Escalation inbox</h1>
      <p class="filters">
        <label>
          Your name{" "}
          <input
            name="by"
            value={by}
            placeholder="recorded with each decision"
            onInput={(e) => {
              const v = (e.target as HTMLInputElement).value;
              setBy(v);
              localStorage.setItem(NAME, v);
            }}
          />
        </label>
        {runId ? <a href="#/inbox">all runs</a> : null}
      </p>
      {data.length === 0 && repairs.data.length === 0 ? <p class="muted">Nothing to decide.</p> : null}
      {repairRuns.length ? <h2>Pending repairs</h2> : null}
      {repairRuns.map((id) => {
        const entries = repairs.data!.filter((r) => r.runId === id);
        return (
          <section class="run-group repairs" key={`repair-${id}`} data-run={id}>
            <h2>
              <a href={`#/runs/${encodeURIComponent(id)}`}>
                {show(entries[0]!.planName)} · {show(id)}
              </a>{" "}
              <Status status={entries[0]!.runStatus} />
            </h2>
            {entries.map((r) => (
              <RepairCard key={r.repairId} entry={r} by={by} onDone={repairs.reload} />
            ))}
          </section>
        );
      })}
      {repairRuns.length && runs.length ? <h2>Escalations</h2> : null}
      {runs.map((id) => {
        const entries = data.filter((e) => e.runId === id);
        const open = entries.filter((e) => !e.resolution).length;
        return (
          <section class="run-group" key={id} data-run={id}>
            <h2>
              <a href={`#/runs/${encodeURIComponent(id)}`}>
                {show(entries[0]!.planName)} · {show(id)}
              </a>{" "}
              <Status status={entries[0]!.runStatus} />
            </h2>
            <p class="actions">
              {open ? `${open} of ${entries.length} undecided` : `all ${entries.length} decided`}
              {open === 0 ? (
                <ResumeButton
                  runId={id}
                  onStarted={() => (location.hash = `#/runs/${encodeURIComponent(id)}`)}
                />
              ) : null}
            </p>
            {entries.map((e) => (
              <Entry key={`${e.nodeId}-${e.item ?? ""}`} entry={e} by={by} onDone={reload} />
            ))}
          </section>
        );
      })}
    </>
  );
}

function Entry({ entry, by, onDone }: { entry: InboxEntry; by: string; onDone: () => void }) {
  const [changing, setChanging] = useState(false);
  const p = entry.proposal;
  const done = () => {
    setChanging(false);
    onDone();
  };
  if (entry.kind === "approval") {
    return (
      <article class="card escalation approval" data-node={entry.nodeId} data-item={entry.item ?? ""}>
        <h3>
          {show(entry.nodeId)}
          {entry.item === undefined ? "" : ` · item ${entry.item}`}{" "}
          <span class="verdict">waits for approval</span>
        </h3>
        <p class="reason">{show(entry.reason)}</p>
        <h4>The call</h4>
        <Pre value={entry.call ?? "(not recorded)"} label="call" />
        {entry.instruction ? (
          <details>
            <summary>What the delegate was asked</summary>
            <Pre value={entry.instruction} label="instruction" />
            <Pre value={entry.facts} label="facts" />
          </details>
        ) : null}
        {entry.resolution && !changing ? (
          <p class="decided">
            Decided{entry.resolution.by ? ` by ${show(entry.resolution.by)}` : ""}:{" "}
            {entry.resolution.kind === "approve" ? "approved" : "rejected"}
            {entry.resolution.kind === "reject" && entry.resolution.reason
              ? ` (${show(entry.resolution.reason)})`
              : ""}{" "}
            <button type="button" onClick={() => setChanging(true)}>
              change
            </button>
          </p>
        ) : (
          <ApprovalForm entry={entry} by={by} onDone={done} />
        )}
        <p class="muted small">Asked {when(entry.createdAt)}</p>
      </article>
    );
  }
  return (
    <article class="card escalation" data-node={entry.nodeId} data-item={entry.item ?? ""}>
      <h3>
        {show(entry.nodeId)}
        {entry.item === undefined ? "" : ` · item ${entry.item}`}{" "}
        <span class="verdict">{show(entry.verdict)}</span>
      </h3>
      <p class="reason">{show(entry.reason)}</p>
      <div class="cols">
        <div>
          <h4>Instruction</h4>
          <Pre value={entry.instruction} label="instruction" />
          <h4>Facts</h4>
          <Pre value={entry.facts} label="facts" />
        </div>
        <div>
          <h4>
            Rejected proposal
            {typeof p?.confidence === "number" ? ` · confidence ${p.confidence.toFixed(2)}` : ""}
            {entry.minConfidence !== undefined ? ` (min ${entry.minConfidence})` : ""}
          </h4>
          <Pre value={p ?? "(none)"} label="proposal" />
          <details>
            <summary>Candidate tools ({entry.tools.length})</summary>
            {entry.tools.map((t) => (
              <div key={t.name}>
                <h4>
                  {show(t.name)} {t.delegateSafe ? "" : <span class="muted">(side effects)</span>}
                </h4>
                <p class="muted">{show(t.description)}</p>
                <Pre value={t.parameters} />
              </div>
            ))}
          </details>
        </div>
      </div>
      {entry.resolution && !changing ? (
        <p class="decided">
          Decided{entry.resolution.by ? ` by ${show(entry.resolution.by)}` : ""}: {entry.resolution.kind}
          {entry.resolution.kind === "call" ? ` ${show(entry.resolution.call, false)}` : ""}
          {entry.resolution.kind === "value" ? ` ${show(entry.resolution.value, false)}` : ""}{" "}
          <button type="button" onClick={() => setChanging(true)}>
            change
          </button>
        </p>
      ) : (
        <DecisionForm entry={entry} by={by} onDone={done} />
      )}
      <p class="muted small">Escalated {when(entry.createdAt)}</p>
    </article>
  );
}
