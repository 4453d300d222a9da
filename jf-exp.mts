import { readFileSync } from "node:fs";
import { LocalDelegate } from "./src/delegate/backends/local-delegate.js";
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const N = Number(process.env.N ?? 20);
const rows = readFileSync("examples/alert-triage/data/heldout.jsonl", "utf8").trim().split("\n").map((l) => JSON.parse(l)).slice(0, N + 1);
const tools = rows[0].tools;
const list = rows.map((r: any) => ({ instruction: r.instruction, facts: r.facts, tools }));
for (const jf of [false, true, false, true]) {
  let drafted = 0, forced = 0, batches = 0;
  const d = new LocalDelegate({ model: process.argv[2]!, threads: 1, jumpForward: jf, _internal: { onDecode: (i: any) => { drafted += i.drafted; forced += i.forced; batches += i.batches; } } });
  await d.propose(list[0]!);
  drafted = forced = batches = 0;
  const c = cpuMs(); const t = performance.now();
  for (const r of list.slice(1)) await d.propose(r);
  const ms = (cpuMs() - c) / N; const wall = (performance.now() - t) / N;
  await d.close();
  console.log(`jumpForward ${jf}: ${ms.toFixed(0)} CPU ms, ${wall.toFixed(0)} wall ms a proposal, batches ${(batches / N).toFixed(1)}, drafted ${(drafted / N).toFixed(1)}, kept ${(forced / N).toFixed(1)}`);
}
