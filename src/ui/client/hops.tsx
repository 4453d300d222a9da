import { duration, show } from "./text.js";
import type { HopSummary } from "./types.js";

/** The delegate hops a node or item recorded in its details (backend, verdict, confidence, latency). */
export function Hops({ details }: { details: Record<string, unknown> | undefined }) {
  const hops = details?.hops;
  if (!Array.isArray(hops) || hops.length === 0) return null;
  return (
    <table class="grid hops">
      <thead>
        <tr>
          <th>#</th>
          <th>Source</th>
          <th>Backend</th>
          <th>Verdict</th>
          <th>Confidence</th>
          <th>Latency</th>
        </tr>
      </thead>
      <tbody>
        {(hops as HopSummary[]).map((h, i) => (
          <tr key={i}>
            <td>{i + 1}</td>
            <td>{show(h.source ?? "delegate")}</td>
            <td>{show(h.backend)}</td>
            <td class={h.verdict === "accepted" ? "ok" : "bad"}>{show(h.verdict)}</td>
            <td>{typeof h.confidence === "number" ? h.confidence.toFixed(2) : "–"}</td>
            <td>{duration(h.latencyMs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
