import type { CurvePoint, MeasuredModel } from "../../eval/learn/learn-node.js";

const esc = (s: string) => s.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The learning curve as a standalone SVG: x = the team's decisions trained on, y = share of the held-out
 * decisions decided at the target; each point labelled with its precision; the champion's share as a dashed line.
 */
export function learnCurveSvg(
  curve: readonly CurvePoint[],
  champion: MeasuredModel | undefined,
  title: string,
): string {
  const W = 640;
  const H = 380;
  const m = { left: 60, right: 24, top: 36, bottom: 50 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const xMax = Math.max(1, ...curve.map((p) => p.decisions));
  const x = (d: number) => m.left + (d / xMax) * pw;
  const y = (s: number) => m.top + (1 - Math.min(1, Math.max(0, s))) * ph;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${m.left}" y="20" font-size="14">${esc(title)}</text>`,
  ];
  for (let i = 0; i <= 10; i += 2) {
    const s = i / 10;
    parts.push(
      `<line x1="${m.left}" x2="${W - m.right}" y1="${y(s)}" y2="${y(s)}" stroke="#e5e5e5"/>`,
      `<text x="${m.left - 8}" y="${y(s) + 4}" text-anchor="end">${i * 10}%</text>`,
    );
  }
  parts.push(
    `<line x1="${m.left}" x2="${m.left}" y1="${m.top}" y2="${m.top + ph}" stroke="#333"/>`,
    `<line x1="${m.left}" x2="${W - m.right}" y1="${m.top + ph}" y2="${m.top + ph}" stroke="#333"/>`,
    `<text x="${m.left + pw / 2}" y="${H - 12}" text-anchor="middle">the team's decisions trained on</text>`,
  );
  for (const p of curve)
    parts.push(
      `<text x="${x(p.decisions)}" y="${m.top + ph + 16}" text-anchor="middle">${p.decisions}</text>`,
    );
  if (champion)
    parts.push(
      `<line x1="${m.left}" x2="${W - m.right}" y1="${y(champion.share)}" y2="${y(champion.share)}" stroke="#999" stroke-dasharray="6 4"/>`,
      `<text x="${W - m.right}" y="${y(champion.share) - 6}" text-anchor="end" fill="#666">champion ${(champion.share * 100).toFixed(1)}%</text>`,
    );
  if (curve.length > 0)
    parts.push(
      `<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="${curve.map((p) => `${x(p.decisions)},${y(p.share)}`).join(" ")}"/>`,
    );
  const anchor = (i: number) => (i === 0 ? "start" : i === curve.length - 1 ? "end" : "middle");
  for (const [i, p] of curve.entries())
    parts.push(
      `<circle cx="${x(p.decisions)}" cy="${y(p.share)}" r="4" fill="#1f77b4"/>`,
      `<text x="${x(p.decisions)}" y="${y(p.share) - 10}" text-anchor="${anchor(i)}">${(p.share * 100).toFixed(1)}%${p.precision === null ? "" : ` @ ${(p.precision * 100).toFixed(1)}%`}</text>`,
    );
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}
