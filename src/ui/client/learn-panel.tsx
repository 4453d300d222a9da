import { Section } from "./parts.js";
import { show, when } from "./text.js";
import { useData } from "./use-data.js";

interface Standing {
  share: number;
  precision: number | null;
  wilsonLower: number | null;
}
interface Turn {
  at: string;
  promoted: boolean;
  reason: string;
  heldOut: number | null;
  train: number | null;
  challenger: Standing | null;
  champion: Standing | null;
}
interface LearnAnswer {
  learn: {
    history: string;
    turns: number;
    curve: { decisions: number; share: number; precision: number | null }[];
    last: Turn;
    lastPromotion: Turn | null;
  } | null;
}

const pct = (v: number | null | undefined) => (typeof v === "number" ? `${(v * 100).toFixed(1)}%` : "–");

/** A delegate node's learning (`deputy ui --learn MODEL.json`): the last turn's curve and the last promotion. */
export function LearnPanel({ nodeId }: { nodeId: string }) {
  const { data } = useData<LearnAnswer>(`/api/learn/${encodeURIComponent(nodeId)}`);
  const learn = data?.learn;
  if (!learn) return null;
  const p = learn.lastPromotion;
  return (
    <Section title="Learning">
      <p class="muted">
        {learn.turns} turn(s) of deputy learn in {show(learn.history)}; the last {when(learn.last.at)}:{" "}
        {learn.last.promoted ? "promoted" : "kept the champion"} — {show(learn.last.reason)}
      </p>
      <table class="grid">
        <thead>
          <tr>
            <th>Decisions trained on</th>
            <th>Share of {learn.last.heldOut ?? "–"} held-out decisions decided</th>
            <th>Precision</th>
          </tr>
        </thead>
        <tbody>
          {learn.curve.map((c) => (
            <tr key={c.decisions}>
              <td>{c.decisions}</td>
              <td>
                <span class="progress">
                  <span class="bar">
                    <span class="seg s-ok" style={{ width: `${Math.round(c.share * 100)}%` }} />
                  </span>
                  <span class="nums">{pct(c.share)}</span>
                </span>
              </td>
              <td>{pct(c.precision)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        {p
          ? `Last promotion ${when(p.at)}: trained on ${p.train ?? "–"} decisions, decides ${pct(p.challenger?.share)} at ${pct(p.challenger?.precision)} (Wilson ≥ ${pct(p.challenger?.wilsonLower)}) where the model before decided ${pct(p.champion?.share)}.`
          : "No promotion yet."}
      </p>
    </Section>
  );
}
