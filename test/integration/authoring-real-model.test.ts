/**
 * A real local model writes a plan and repairs one, end to end: llama-server's OpenAI-compatible endpoint on
 * Qwen2.5-Coder-1.5B-Instruct (skipped, with a message, where it is not cached: `bash scripts/models.sh
 * qwen2.5-coder-1.5b-instruct`, which `npm test` runs), greedy (temperature 0, a fixed seed), one
 * thread, niced. DEPUTY_AUTHORING_MODEL=0.5b runs it on the 0.5B, which does not author this plan: it makes
 * `weather` depend on itself, also after the correction round (docs/plan-authoring.md has what it did). The model
 *
 * 1. authors a valid two-node plan for an easy objective through `authorPlan` (its catalogue and the plan
 *    schema as a JSON-schema response format; one correction round), and the plan runs;
 * 2. repairs a failed run whose `fetch_v1` throws "gone, use fetch_v2": `repairRun` asks it for a plan delta,
 *    `approveRepair` applies it as a child run, and the child completes without running again what completed.
 *
 * Slow on a busy machine (minutes: every request constrains decoding with the plan schema's grammar); the wall
 * time of each step is printed.
 */
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultSettingsMiddleware, wrapLanguageModel } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorPlan } from "../../src/authoring/author-plan.js";
import { modelFromSpec } from "../../src/authoring/model-spec.js";
import { approveRepair } from "../../src/authoring/repair-decisions.js";
import { repairRun } from "../../src/authoring/repair-run.js";
import { renderRepairDiff } from "../../src/authoring/repair-diff.js";
import { resumeRun, runPlan } from "../../src/index.js";
import { SqliteRunStore } from "../../src/store/sqlite-run-store.js";
import {
  findLlamaServerBinary,
  findRealModel,
  startLlamaServer,
  type LlamaServerProcess,
} from "../../src/testing/index.js";
import { defineTool } from "../../src/tools/define-tool.js";

const which = process.env.DEPUTY_AUTHORING_MODEL === "0.5b" ? "0.5b" : "1.5b";
const model = findRealModel(`qwen2.5-coder-${which}-instruct`);
const binary = findLlamaServerBinary();
const skip = !model || !binary;
if (skip)
  console.warn(
    `authoring-real-model: skipped — ${!binary ? "llama-server is not built (bash scripts/llama-server.sh)" : `Qwen2.5-Coder-${which.toUpperCase()} is not cached (bash scripts/models.sh qwen2.5-coder-${which}-instruct)`}.`,
  );

const effects: string[] = [];
const tools = [
  defineTool({
    name: "get_weather",
    description: "Get the current weather of a city",
    delegateSafe: true,
    input: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    run: ({ city }: { city: string }) => (effects.push(`weather ${city}`), `sunny, 21 °C in ${city}`),
  }),
  defineTool({
    name: "send_message",
    description: "Send a text message to a person",
    input: {
      type: "object",
      properties: { to: { type: "string" }, text: { type: "string" } },
      required: ["to", "text"],
    },
    run: ({ to, text }: { to: string; text: string }) => (
      effects.push(`message ${to}: ${text}`),
      { sent: true }
    ),
  }),
  defineTool({
    name: "fetch_v1",
    description: "Fetch a web page (old version)",
    input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    run: () => {
      effects.push("fetch_v1");
      throw new Error("fetch_v1 is gone, use fetch_v2");
    },
  }),
  defineTool({
    name: "fetch_v2",
    description: "Fetch a web page",
    delegateSafe: true,
    input: { type: "object", properties: { url: { type: "string" } }, required: ["url"] },
    run: ({ url }: { url: string }) => (effects.push(`fetch_v2 ${url}`), `<html>${url}</html>`),
  }),
  defineTool({
    name: "save_page",
    description: "Save a page's text",
    input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    run: ({ text }: { text: string }) => (effects.push(`save ${text}`), { saved: true }),
  }),
];

describe.skipIf(skip)(`Qwen2.5-Coder-${which.toUpperCase()} writes and repairs a plan (llama-server)`, () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-authoring-real-"));
  const store = new SqliteRunStore(join(dir, "runs.db"));
  let server: LlamaServerProcess | undefined;
  let llm: Awaited<ReturnType<typeof modelFromSpec>>["model"];
  const timings: Record<string, number> = {};
  const timed = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      timings[name] = Math.round(performance.now() - started);
    }
  };

  beforeAll(async () => {
    // Niced: the machine is shared, and this model is one more process on it.
    const niced = join(dir, "llama-server");
    writeFileSync(niced, `#!/bin/sh\nexec nice -n 10 ${JSON.stringify(binary)} "$@"\n`);
    chmodSync(niced, 0o755);
    server = await timed("server start", () =>
      startLlamaServer({ model: model!, binary: niced, threads: 1, parallel: 1, contextSize: 8192 }),
    );
    const { model: base } = await modelFromSpec(`openai=${server.baseUrl}/v1`);
    llm = wrapLanguageModel({
      model: base,
      middleware: defaultSettingsMiddleware({ settings: { temperature: 0, seed: 1 } }),
    }) as typeof base;
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    await store.close();
    console.log(`authoring-real-model (${which}) wall times, ms: ${JSON.stringify(timings)}`);
  });

  it(
    "authors a valid two-node plan for an easy objective, and it runs",
    async () => {
      const result = await timed("author", () =>
        authorPlan({
          objective:
            'Get the weather in Paris (node "weather"), then send it to alice as a message (node "notify", which depends on "weather" and sends the text {artifacts.weather}).',
          tools,
          allowedTools: ["get_weather", "send_message"],
          model: llm,
        }),
      );
      console.log(`authored (${which}):`, JSON.stringify(result, null, 1));
      expect(result.ok, JSON.stringify(!result.ok && result.issues)).toBe(true);
      if (!result.ok) return;
      const nodes = result.plan.nodes as { tool: string }[];
      expect(nodes.map((n) => n.tool)).toEqual(["get_weather", "send_message"]);
      const manifest = await timed("author run", () => runPlan(result.plan, { tools, store }));
      expect(manifest.status).toBe("completed");
      expect(effects.filter((e) => e.startsWith("message"))).toEqual([
        expect.stringMatching(/^message alice: .*sunny, 21 °C in Paris/),
      ]);
    },
    30 * 60_000,
  );

  it(
    "repairs a failed node whose tool has a working twin; the child run keeps what completed",
    async () => {
      const plan = {
        name: "fetch-and-save",
        objective: "Fetch https://example.org and save its text",
        nodes: [
          { id: "fetch", tool: "fetch_v1", args: { url: "https://example.org" }, store_as: "page" },
          {
            id: "save",
            tool: "save_page",
            depends_on: ["fetch"],
            args: { text: "{artifacts.page}" },
            store_as: "saved",
          },
        ],
      };
      const failed = await runPlan(plan, { tools, store });
      expect(failed.status).toBe("failed");
      const repaired = await timed("repair", () => repairRun(store, failed.runId, { model: llm, tools }));
      console.log(`repair (${which}):`, JSON.stringify(repaired, null, 1));
      expect(repaired.ok, JSON.stringify(!repaired.ok && repaired.issues)).toBe(true);
      console.log(renderRepairDiff(repaired.repair.diff ?? []));
      expect(repaired.repair.diff).toContainEqual({
        nodeId: "fetch",
        field: "tool",
        before: "fetch_v1",
        after: "fetch_v2",
      });
      const { childRunId } = await approveRepair(store, failed.runId);
      const child = await timed("repaired run", () => resumeRun(childRunId, { tools, store }));
      expect(child.status).toBe("completed");
      expect(effects.filter((e) => e.startsWith("fetch"))).toEqual([
        "fetch_v1",
        "fetch_v2 https://example.org",
      ]);
      expect(effects.filter((e) => e.startsWith("save"))).toEqual(["save <html>https://example.org</html>"]);
    },
    30 * 60_000,
  );
});
