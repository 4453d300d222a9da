import { withQuery } from "./api.js";
import { Loading, Pre } from "./parts.js";
import { duration, show, when } from "./text.js";
import type { TraceView } from "./types.js";
import { useData } from "./use-data.js";

type Answer = TraceView & { threshold?: { label: string; value: number } };
const KEYS = ["runId", "nodeId", "item", "verdict", "backend"] as const;

/** The trace viewer: delegate hops filtered by run, node, verdict and backend, with a confidence histogram. */
export function TracesPage({ query }: { query: URLSearchParams }) {
  const params = Object.fromEntries(KEYS.map((k) => [k, query.get(k) ?? undefined]));
  const { data, error } = useData<Answer>(withQuery("/api/traces", params));
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(query);
    if (value) next.set(key, value);
    else next.delete(key);
    location.hash = `#/traces?${next.toString()}`;
  };
  if (!data) return <Loading error={error} />;
  if (!data.available)
    return (
      <p class="muted">
        No traces: start the console with --traces FILE, or open a run that was started with --traces.
      </p>
    );
  return (
    <>
      <h1>Traces</h1>
      <p class="filters">
        {(["runId", "nodeId"] as const).map((k) => (
          <label key={k}>
            {k === "runId" ? "Run" : "Node"}{" "}
            <input
              name={k}
              value={params[k] ?? ""}
              onChange={(e) => set(k, (e.target as HTMLInputElement).value.trim())}
            />
          </label>
        ))}
        <label>
          Verdict{" "}
          <select
            name="verdict"
            value={params.verdict ?? ""}
            onChange={(e) => set("verdict", (e.target as HTMLSelectElement).value)}
          >
            <option value="">all</option>
            {data.verdicts!.map((v) => (
              <option key={v} value={v}>
                {show(v)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Backend{" "}
          <select
            name="backend"
            value={params.backend ?? ""}
            onChange={(e) => set("backend", (e.target as HTMLSelectElement).value)}
          >
            <option value="">all</option>
            {data.backends!.map((b) => (
              <option key={b} value={b}>
                {show(b)}
              </option>
            ))}
          </select>
        </label>
      </p>
      <Histogram bins={data.histogram!.bins} unscored={data.histogram!.unscored} threshold={data.threshold} />
      <p class="muted">
        {data.total} hop{data.total === 1 ? "" : "s"}
        {data.total! > data.traces!.length ? `, the newest ${data.traces!.length} shown` : ""}
      </p>
      <table class="grid traces">
        <thead>
          <tr>
            <th>Time</th>
            <th>Node</th>
            <th>Item</th>
            <th>Backend</th>
            <th>Verdict</th>
            <th>Confidence</th>
            <th>Latency</th>
            <th>Proposal</th>
          </tr>
        </thead>
        <tbody>
          {data.traces!.map((t, i) => (
            <tr key={i}>
              <td>{when(t.time)}</td>
              <td>{show(t.nodeId)}</td>
              <td>{t.item ?? ""}</td>
              <td>{show(t.backend)}</td>
              <td class={t.verdict === "accepted" ? "ok" : "bad"}>{show(t.verdict)}</td>
              <td>{typeof t.proposal?.confidence === "number" ? t.proposal.confidence.toFixed(2) : "–"}</td>
              <td>{duration(t.latencyMs)}</td>
              <td>
                <details>
                  <summary>{show(t.proposal?.name ?? "(declined)")}</summary>
                  <Pre
                    value={{
                      instruction: t.instruction,
                      proposal: t.proposal,
                      finalCall: t.finalCall,
                      error: t.error,
                    }}
                  />
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** Confidences in ten bins, with the node's threshold (as its node type names it) drawn as a line. */
function Histogram({
  bins,
  unscored,
  threshold,
}: {
  bins: number[];
  unscored: number;
  threshold?: { label: string; value: number } | undefined;
}) {
  const min = threshold?.value;
  const W = 420;
  const H = 120;
  const top = Math.max(1, ...bins);
  const bw = W / bins.length;
  return (
    <figure class="histogram">
      <svg
        viewBox={`0 0 ${W} ${H + 18}`}
        width={W}
        height={H + 18}
        role="img"
        aria-label="confidence histogram"
      >
        {bins.map((n, i) => {
          const h = (H * n) / top;
          const below = min !== undefined && (i + 1) / 10 <= min;
          return (
            <g key={i}>
              <rect x={i * bw + 2} y={H - h} width={bw - 4} height={h} class={below ? "bin below" : "bin"} />
              {n ? (
                <text x={i * bw + bw / 2} y={H - h - 3} text-anchor="middle" class="binn">
                  {n}
                </text>
              ) : null}
            </g>
          );
        })}
        {[0, 0.5, 1].map((v) => (
          <text key={v} x={Math.min(W - 8, Math.max(8, v * W))} y={H + 14} text-anchor="middle" class="axis">
            {v}
          </text>
        ))}
        {min !== undefined ? <line x1={min * W} x2={min * W} y1={0} y2={H} class="threshold" /> : null}
      </svg>
      <figcaption>
        Confidence of the proposals{threshold ? `; ${threshold.label} ${threshold.value}` : ""}
        {unscored ? `; ${unscored} unscored` : ""}
      </figcaption>
    </figure>
  );
}
