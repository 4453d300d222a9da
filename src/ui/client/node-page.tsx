import { Fragment } from "preact";
import { useState } from "preact/hooks";
import { withQuery } from "./api.js";
import { Hops } from "./hops.js";
import { Loading, Pre, Progress, Section, Status } from "./parts.js";
import { duration, show, usd, when } from "./text.js";
import type { ItemPage, NodeView } from "./types.js";
import { useData } from "./use-data.js";

interface NodeAnswer {
  node: NodeView;
  plan: Record<string, unknown>;
  artifacts: Record<string, string>;
  runStatus: string;
}

const PAGE = 50;

/** One node: its record, definition, stored artifacts, delegate hops and (for for_each) its items, paged. */
export function NodePage({ runId, nodeId }: { runId: string; nodeId: string }) {
  const base = `/api/runs/${encodeURIComponent(runId)}/nodes/${encodeURIComponent(nodeId)}`;
  const { data, error } = useData<NodeAnswer>(base, { poll: (d) => d.runStatus === "running" });
  if (!data) return <Loading error={error} />;
  const { node } = data;
  const runHref = `#/runs/${encodeURIComponent(runId)}`;
  return (
    <>
      <p class="crumbs">
        <a href={runHref}>← run {show(runId)}</a>
      </p>
      <h1>
        {show(node.id)} <Status status={node.status} />
        {node.details?.cached ? <Cached /> : null}
      </h1>
      <dl class="facts">
        <dt>Type</dt>
        <dd>{node.type}</dd>
        <dt>Attempts</dt>
        <dd>{node.attempts}</dd>
        <dt>Started</dt>
        <dd>{when(node.startedAt)}</dd>
        <dt>Duration</dt>
        <dd>{duration(node.durationMs)}</dd>
        <dt>Spend</dt>
        <dd>
          {node.spend
            ? `${usd(node.spend.cost)} · ${node.spend.calls} calls · ${node.spend.tokens} tokens`
            : "–"}
        </dd>
        {node.items ? (
          <>
            <dt>Items</dt>
            <dd>
              <Progress total={node.items.total} counts={node.items.counts} />
            </dd>
          </>
        ) : null}
      </dl>
      <p class="actions">
        {node.type === "delegate" ? (
          <a href={`#/traces?runId=${encodeURIComponent(runId)}&nodeId=${encodeURIComponent(nodeId)}`}>
            Traces
          </a>
        ) : null}
        {node.escalated ? (
          <a class="flag" href={`#/inbox?runId=${encodeURIComponent(runId)}`}>
            Decide escalations
          </a>
        ) : null}
      </p>
      {node.error ? (
        <Section title="Error">
          <Pre value={node.error} />
        </Section>
      ) : null}
      {node.escalation ? (
        <Section title="Escalation">
          <Pre value={node.escalation} />
        </Section>
      ) : null}
      {node.details?.hops ? (
        <Section title="Delegate hops">
          <Hops details={node.details} />
        </Section>
      ) : null}
      {Object.keys(data.artifacts).length ? (
        <Section title="Artifacts">
          {Object.entries(data.artifacts).map(([key, text]) => (
            <div key={key}>
              <h3>{show(key)}</h3>
              <Pre value={text} label={`artifact ${key}`} />
            </div>
          ))}
        </Section>
      ) : null}
      {node.items ? (
        <Items
          base={base}
          traces={`#/traces?runId=${encodeURIComponent(runId)}&nodeId=${encodeURIComponent(nodeId)}`}
        />
      ) : null}
      <Section title="Definition">
        <Pre value={data.plan} />
      </Section>
    </>
  );
}

function Items({ base, traces }: { base: string; traces: string }) {
  const [status, setStatus] = useState("");
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<number>();
  const { data, error } = useData<ItemPage>(withQuery(`${base}/items`, { status, offset, limit: PAGE }));
  return (
    <Section title="Items">
      <p class="filters">
        <label>
          Status{" "}
          <select
            value={status}
            onChange={(e) => {
              setStatus((e.target as HTMLSelectElement).value);
              setOffset(0);
            }}
          >
            <option value="">all</option>
            {["ok", "error", "skipped", "escalated"].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        {data ? (
          <span class="pager">
            <button
              type="button"
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - PAGE))}
            >
              ‹ prev
            </button>
            {data.total ? `${offset + 1}–${Math.min(offset + PAGE, data.total)} of ${data.total}` : "none"}
            <button
              type="button"
              disabled={offset + PAGE >= data.total}
              onClick={() => setOffset(offset + PAGE)}
            >
              next ›
            </button>
          </span>
        ) : null}
      </p>
      {!data ? (
        <Loading error={error} />
      ) : (
        <table class="grid items">
          <thead>
            <tr>
              <th>#</th>
              <th>Status</th>
              <th>Key</th>
              <th>Verdict</th>
              <th>Value / error</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map(({ record, value }) => (
              <Fragment key={record.index}>
                <tr
                  class="item-row"
                  onClick={() => setOpen(open === record.index ? undefined : record.index)}
                >
                  <td>{record.index}</td>
                  <td>
                    <Status status={record.status} />
                    {record.details?.cached ? <Cached /> : null}
                  </td>
                  <td>{show(record.key ?? "")}</td>
                  <td>{show(String(record.details?.verdict ?? record.escalation?.verdict ?? ""))}</td>
                  <td class="clip">
                    {record.error
                      ? show(record.error.message)
                      : value !== undefined
                        ? show(value, false)
                        : ""}
                  </td>
                </tr>
                {open === record.index ? (
                  <tr class="item-detail">
                    <td colSpan={5}>
                      <Hops details={record.details} />
                      <p>
                        <a href={`${traces}&item=${record.index}`}>This item's proposals in the traces</a>
                      </p>
                      <Pre value={{ ...record, ...(value !== undefined ? { value } : {}) }} />
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}

/** The mark of a result reused from the cache (`cache: { ttl }`): the tool was not called. */
function Cached() {
  return (
    <span class="muted small cached" title="reused from the cache: the tool was not called">
      {" "}
      cached
    </span>
  );
}
