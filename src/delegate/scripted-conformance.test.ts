import { buildSuiteCases, delegateBackendSuite } from "../../test/delegate-backend-suite.js";
import { ScriptedDelegate, type ScriptedEntry } from "./scripted-delegate.js";

// The replay backend passes the same suite as the model backends. Its script answers the sweep the way a careless
// model would — mostly the first candidate with made-up arguments, some declines, some failures (every seventh
// item: a share of 1/7 backend_error, under the ceiling) — and the other cases of the suite by node.
const SWEEP = 200;
const MAX_TOOLS = 5;

function script(): ScriptedEntry[] {
  const entries: ScriptedEntry[] = buildSuiteCases(SWEEP, MAX_TOOLS).map((c, item) => {
    const first = c.request.tools[0]!.name;
    if (item % 7 === 6) return { node: "conformance", item, error: "model answered nothing" };
    if (item % 5 === 4) return { node: "conformance", item, proposal: { name: null } };
    return {
      node: "conformance",
      item,
      proposal: { name: first, arguments: { guessed: item }, confidence: (item % 10) / 10 },
    };
  });
  const [c0] = buildSuiteCases(1, MAX_TOOLS);
  const sure = { name: c0!.request.tools[0]!.name, arguments: {}, confidence: 0.9 };
  entries.push({ node: "decline", proposal: { name: null } });
  for (const node of ["before-abort", "timeout", "closed"]) entries.push({ node, proposal: sure });
  buildSuiteCases(6, MAX_TOOLS).forEach((c, item) => {
    const proposal = { name: c.request.tools[item % c.request.tools.length]!.name, confidence: 0.5 };
    entries.push({ node: "concurrent", item, proposal }, { node: "sequential", item, proposal });
  });
  return entries;
}

delegateBackendSuite({
  name: "ScriptedDelegate",
  create: () => new ScriptedDelegate({ entries: script(), maxTools: MAX_TOOLS }),
  proposals: SWEEP,
  maxBackendErrorShare: 0.15,
  sweepTimeoutMs: 60_000,
});
