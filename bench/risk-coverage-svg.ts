import type { CoveragePoint } from "../src/confidence/score-metrics.js";

const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"];
/** Line style by score: the choice confidence solid, the mean token probability dashed, calibrated dotted. */
const DASH: Record<string, string> = {
  "choice confidence": "",
  "mean token probability": "6 4",
  "calibrated (out of fold)": "2 3",
};

/**
 * A risk–coverage chart as a standalone SVG: x = share of proposals accepted (coverage), y = precision of the
 * accepted ones, one line per curve (labelled `backend: score`; colour by backend, dash by score), a dotted grey
 * line at 95 % precision.
 */
export function riskCoverageSvg(curves: { label: string; points: CoveragePoint[] }[]): string {
  const W = 720;
  const H = 440;
  const m = { left: 60, right: 20, top: 20, bottom: 50 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const yMin = 0.4;
  const x = (c: number) => m.left + c * pw;
  const y = (p: number) => m.top + (1 - (Math.max(p, yMin) - yMin) / (1 - yMin)) * ph;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
  ];
  for (let i = 0; i <= 10; i++) {
    const c = i / 10;
    parts.push(
      `<line x1="${x(c)}" y1="${m.top}" x2="${x(c)}" y2="${m.top + ph}" stroke="#eee"/>`,
      `<text x="${x(c)}" y="${m.top + ph + 16}" text-anchor="middle">${(c * 100).toFixed(0)}%</text>`,
    );
  }
  for (let p = yMin; p <= 1.0001; p += 0.1) {
    parts.push(
      `<line x1="${m.left}" y1="${y(p)}" x2="${m.left + pw}" y2="${y(p)}" stroke="#eee"/>`,
      `<text x="${m.left - 6}" y="${y(p) + 4}" text-anchor="end">${(p * 100).toFixed(0)}%</text>`,
    );
  }
  parts.push(
    `<line x1="${m.left}" y1="${y(0.95)}" x2="${m.left + pw}" y2="${y(0.95)}" stroke="#999" stroke-dasharray="2 3"/>`,
    `<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`,
    `<text x="${m.left + pw / 2}" y="${H - 10}" text-anchor="middle">coverage (share of proposals accepted as min_confidence falls)</text>`,
    `<text transform="translate(16 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">precision of accepted proposals</text>`,
  );
  const backends = [...new Set(curves.map((c) => c.label.split(": ")[0] ?? ""))];
  const legendTop = m.top + ph - 14 - 18 * curves.length;
  parts.push(
    `<rect x="${m.left + pw - 258}" y="${legendTop}" width="250" height="${18 * curves.length + 8}" fill="white" fill-opacity="0.9" stroke="#ccc"/>`,
  );
  curves.forEach((curve, i) => {
    const [backend = "", score = ""] = curve.label.split(": ");
    const colour = COLOURS[backends.indexOf(backend) % COLOURS.length]!;
    const dash = DASH[score] ?? "";
    let d = "";
    for (const p of curve.points)
      d += `${d ? "L" : "M"}${x(p.coverage).toFixed(1)},${y(p.precision).toFixed(1)}`;
    parts.push(
      `<path d="${d}" fill="none" stroke="${colour}" stroke-width="2" ${dash ? `stroke-dasharray="${dash}"` : ""}/>`,
      `<line x1="${m.left + pw - 250}" y1="${m.top + ph - 20 - 18 * (curves.length - 1 - i)}" x2="${m.left + pw - 225}" y2="${m.top + ph - 20 - 18 * (curves.length - 1 - i)}" stroke="${colour}" stroke-width="2" ${dash ? `stroke-dasharray="${dash}"` : ""}/>`,
      `<text x="${m.left + pw - 220}" y="${m.top + ph - 16 - 18 * (curves.length - 1 - i)}">${escape(curve.label)}</text>`,
    );
  });
  parts.push("</svg>");
  return parts.join("\n") + "\n";
}

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;");
}
