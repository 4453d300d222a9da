/** One bar of {@link floorSvg}: a backend's proposals a CPU-second on one model, and that model's floor. */
export interface FloorBar {
  model: string;
  label: string;
  perSecond: number;
  /** Proposals a CPU-second if every proposal cost exactly its floor. */
  floorPerSecond: number;
}

const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#7f7f7f"];

/**
 * Throughput against the floor as a standalone SVG: one panel per model, a horizontal bar per backend
 * (proposals a CPU-second, which a shared machine's load does not distort), and a dashed line at the floor's
 * (own prompt tokens at the prefill rate plus value tokens at the decode rate).
 */
export function floorSvg(bars: FloorBar[]): string {
  const models = [...new Set(bars.map((b) => b.model))];
  const labels = [...new Set(bars.map((b) => b.label))];
  const W = 820;
  const row = 22;
  const left = 330;
  const right = 70;
  const panel = (n: number) => 34 + n * row + 16;
  const H = 20 + models.reduce((h, m) => h + panel(bars.filter((b) => b.model === m).length), 0) + 30;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
  ];
  let top = 20;
  for (const model of models) {
    const mine = bars.filter((b) => b.model === model);
    const floor = mine[0]!.floorPerSecond;
    const max = Math.max(floor, ...mine.map((b) => b.perSecond)) * 1.1;
    const x = (v: number) => left + (v / max) * (W - left - right);
    parts.push(`<text x="10" y="${top + 14}" font-weight="bold">${model}: proposals a CPU-second</text>`);
    mine.forEach((b, i) => {
      const y = top + 26 + i * row;
      const colour = COLOURS[labels.indexOf(b.label) % COLOURS.length]!;
      parts.push(
        `<text x="${left - 8}" y="${y + 14}" text-anchor="end">${escape(b.label)}</text>`,
        `<rect x="${left}" y="${y + 2}" width="${(x(b.perSecond) - left).toFixed(1)}" height="${row - 6}" fill="${colour}"/>`,
        `<text x="${(x(b.perSecond) + 4).toFixed(1)}" y="${y + 14}">${b.perSecond.toFixed(3)}</text>`,
      );
    });
    const bottom = top + 26 + mine.length * row;
    parts.push(
      `<line x1="${x(floor).toFixed(1)}" y1="${top + 20}" x2="${x(floor).toFixed(1)}" y2="${bottom}" stroke="#333" stroke-dasharray="5 3"/>`,
      `<text x="${x(floor).toFixed(1)}" y="${bottom + 12}" text-anchor="middle">floor ${floor.toFixed(3)}</text>`,
    );
    top += panel(mine.length);
  }
  parts.push(
    `<text x="${W / 2}" y="${H - 8}" text-anchor="middle">dashed: the floor (own prompt tokens at the prefill rate + value tokens at the decode rate, per CPU-second)</text>`,
    "</svg>",
  );
  return parts.join("\n");
}

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
