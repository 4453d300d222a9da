/**
 * No secret in a record (issue 38 item 5): secrets given in `--tools` MCP specs (a URL's password, a secret query
 * parameter, a stdio server's `--token` option and `API_KEY=…` argument) and in `--delegate` specs never reach the
 * stored row (read with node:sqlite, not through deputy), `deputy runs RUN --json` or the trace file.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { main } from "../src/cli/main.js";
import { redactRecordedSpec } from "../src/store/redact-recorded-spec.js";
import { alnum, secretShapes } from "./secret-shapes.js";

const HOSTILE = join(import.meta.dirname, "fixtures/mcp/hostile-server.mjs");

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), isTTY: false });
  return { code, stdout, stderr };
}

/** A spec that carries `secret` in one of the ways a user writes one. */
const carriers = (secret: string, shape: string) => [
  `mcp+https://app:${secret}@mcp.example.com/mcp`,
  `mcp+https://mcp.example.com/mcp?api_key=${secret}`,
  `mcp:stdio:node server.mjs --token ${secret}`,
  `mcp:stdio:node server.mjs --api-key=${secret}`,
  `mcp:stdio:env API_KEY=${secret} node server.mjs`,
  `mcp:stdio:node server.mjs ${shape}`,
  `openai=https://u:${secret}@llm.example.com/v1,model=m`,
  `openai=https://llm.example.com/v1?access_token=${secret},apiKeyEnv=MY_KEY`,
];

describe("no secret in a run record (issue 38 item 5)", () => {
  it("a recorded spec keeps no generated secret, in any of the ways a spec carries one", () => {
    fc.assert(
      fc.property(secretShapes, alnum(12, 30), ({ text, secret }, plain) => {
        for (const spec of carriers(plain, text)) {
          const kept = redactRecordedSpec(spec);
          expect(kept).not.toContain(plain);
          expect(kept).not.toContain(secret);
        }
        // The name of the variable a key is read from is no secret, and stays.
        expect(redactRecordedSpec("openai=https://h/v1,apiKeyEnv=MY_KEY")).toContain("apiKeyEnv=MY_KEY");
      }),
      { numRuns: 200 },
    );
  });

  it("a run started with secrets in its specs keeps none in the row, runs --json or the trace file", async () => {
    await fc.assert(
      fc.asyncProperty(alnum(16, 24), secretShapes, async (secret, shape) => {
        const dir = mkdtempSync(join(tmpdir(), "deputy-no-secret-"));
        const store = join(dir, "runs.db");
        const traces = join(dir, "traces.jsonl");
        writeFileSync(
          join(dir, "tools.mjs"),
          `export const tools = [{ name: "noop", description: "does nothing", delegateSafe: true, input: { type: "object" }, run: () => "ok" }];\n`,
        );
        writeFileSync(
          join(dir, "proposals.jsonl"),
          JSON.stringify({ node: "d", proposal: { name: "noop", arguments: {}, confidence: 0.95 } }) + "\n",
        );
        writeFileSync(
          join(dir, "plan.json"),
          JSON.stringify({
            name: "secrets",
            nodes: [{ id: "d", type: "delegate", instruction: "do it", tools: ["noop"], store_as: "d" }],
          }),
        );
        const run = await cli([
          "run",
          join(dir, "plan.json"),
          "--tools",
          join(dir, "tools.mjs"),
          "--tools",
          `mcp:stdio:${process.execPath} ${HOSTILE} --token ${secret} ${shape.text}`,
          "--delegate",
          `scripted=${join(dir, "proposals.jsonl")}`,
          "--delegate",
          `openai=https://u:${secret}@127.0.0.1:9/v1?api_key=${secret}`,
          "--traces",
          traces,
          "--store",
          store,
          "--json",
        ]);
        expect(run.code, run.stderr).toBe(0);
        const { runId } = JSON.parse(run.stdout) as { runId: string };
        const db = new DatabaseSync(store);
        const row = JSON.stringify(db.prepare("SELECT * FROM runs WHERE run_id = ?").get(runId));
        db.close();
        const listed = await cli(["runs", runId, "--store", store, "--json"]);
        expect(listed.code, listed.stderr).toBe(0);
        const trace = existsSync(traces) ? readFileSync(traces, "utf8") : "";
        expect(trace.length).toBeGreaterThan(0);
        for (const text of [row, listed.stdout, trace]) {
          expect(text).not.toContain(secret);
          expect(text).not.toContain(shape.secret);
        }
        // The row still names the sources (without their secrets): the record is useful, not empty.
        expect(row).toContain("hostile-server.mjs");
      }),
      { numRuns: 4 },
    );
  }, 120_000);
});
