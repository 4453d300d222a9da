import dagre, { type Point } from "@dagrejs/dagre";
import { useMemo } from "preact/hooks";
import { show } from "./text.js";
import type { NodeView } from "./types.js";

const W = 210;
const H = 66;

/** The plan as a graph laid out by dagre: nodes coloured by status, for_each progress, escalations flagged. */
export function RunGraph({ runId, nodes }: { runId: string; nodes: NodeView[] }) {
  const layout = useMemo(() => {
    const g = new dagre.graphlib.Graph();
    g.setGraph({ rankdir: "LR", nodesep: 24, ranksep: 56, marginx: 12, marginy: 12 });
    g.setDefaultEdgeLabel(() => ({}));
    for (const n of nodes) g.setNode(n.id, { width: W, height: H });
    const ids = new Set(nodes.map((n) => n.id));
    for (const n of nodes) for (const d of n.dependsOn) if (ids.has(d)) g.setEdge(d, n.id);
    dagre.layout(g);
    const graph = g.graph();
    return {
      width: graph.width ?? W,
      height: graph.height ?? H,
      at: (id: string) => g.node(id) as Point,
      edges: g.edges().map((e: { v: string; w: string }) => (g.edge(e) as { points?: Point[] }).points ?? []),
    };
  }, [nodes.map((n) => `${n.id}<${n.dependsOn.join(",")}`).join(";")]);

  return (
    <svg
      class="graph"
      role="img"
      aria-label="plan graph"
      viewBox={`0 0 ${layout.width} ${layout.height}`}
      width={layout.width}
      height={layout.height}
    >
      <defs>
        <marker
          id="arrow"
          viewBox="0 0 10 10"
          refX="9"
          refY="5"
          markerWidth="7"
          markerHeight="7"
          orient="auto"
        >
          <path d="M0,0 L10,5 L0,10 z" class="arrowhead" />
        </marker>
      </defs>
      {layout.edges.map((points: Point[], i: number) => (
        <polyline
          key={i}
          class="edge"
          marker-end="url(#arrow)"
          points={points.map((p: Point) => `${p.x},${p.y}`).join(" ")}
        />
      ))}
      {nodes.map((n) => {
        const at = layout.at(n.id);
        const x = at.x - W / 2;
        const y = at.y - H / 2;
        const items = n.items;
        const done = items ? Object.values(items.counts).reduce((a, b) => a + (b ?? 0), 0) : 0;
        const frac = items?.total ? Math.min(1, done / items.total) : 0;
        return (
          <a
            key={n.id}
            href={`#/runs/${encodeURIComponent(runId)}/nodes/${encodeURIComponent(n.id)}`}
            class="gnode-link"
          >
            <g class={`gnode s-${statusClass(n.status)}`} data-node={n.id} data-status={n.status}>
              <rect x={x} y={y} width={W} height={H} rx={8} class="box" />
              <text x={x + 10} y={y + 20} class="gid">
                {clip(show(n.id), 24)}
              </text>
              <text x={x + 10} y={y + 38} class="gsub">
                {n.type} · {n.status}
                {n.type === "tool" && n.tool ? ` · ${clip(show(n.tool), 12)}` : ""}
              </text>
              {items ? (
                <>
                  <rect x={x + 10} y={y + 47} width={W - 20} height={7} rx={3} class="gtrack" />
                  <rect x={x + 10} y={y + 47} width={(W - 20) * frac} height={7} rx={3} class="gfill" />
                  <text x={x + W - 10} y={y + 38} class="gnum" text-anchor="end">
                    {done}/{items.total ?? "?"}
                  </text>
                </>
              ) : null}
              {n.escalated ? (
                <g class="gflag">
                  <circle cx={x + W - 4} cy={y + 4} r={11} />
                  <text x={x + W - 4} y={y + 8} text-anchor="middle">
                    {n.escalated}
                  </text>
                </g>
              ) : null}
            </g>
          </a>
        );
      })}
    </svg>
  );
}

const KNOWN = new Set(["pending", "running", "ok", "partial", "skipped", "error", "blocked", "escalated"]);
function statusClass(status: string) {
  return KNOWN.has(status) ? status : "unknown";
}

function clip(text: string, n: number) {
  return text.length > n ? text.slice(0, n - 1) + "…" : text;
}
