import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SECRET = "sk_live_51HxQ2bC3dE4fG5hI6jK7lM8n";

// A program that imports one subpath and nothing else: whatever redacts its events must come with that subpath,
// not with the root entry (which this process never loads).
const AGENTS_ONLY = `
import { subscribe } from "node:diagnostics_channel";
import { z } from "zod";
import { defineAgent, delegateTo, delegation, mockModel, DELEGATION_CHANNEL, DELEGATION_START_CHANNEL } from "./dist/agents/index.js";
const seen = [];
subscribe(DELEGATION_START_CHANNEL, (m) => seen.push(m));
subscribe(DELEGATION_CHANNEL, (m) => seen.push(m));
const sub = defineAgent({
  name: "Sub",
  backend: mockModel({ replies: ["done"] }),
  delegations: [delegation("lookup", { description: "Look up", input: z.object({ note: z.string(), apiKey: z.string() }) })],
  actions: { lookup: ({ note }) => note },
});
const caller = defineAgent({
  name: "Caller",
  backend: mockModel({ replies: [{ toolCalls: [{ toolName: "lookup", input: { note: "pay with ${SECRET}", apiKey: "k-1234567890" } }] }, "ok"] }),
  delegateTo: [delegateTo(sub)],
  actions: { go: () => "go" },
});
await caller.run("go");
process.stdout.write(JSON.stringify({ seen }));
`;

// The engine alone: what a run records (a tool's error here) passes the same redactor without the root entry.
const PLAN_ONLY = `
import { NodeTypeTable, startRun, toolNodeType } from "./dist/plan/index.js";
import { ToolRegistry } from "./dist/tools/index.js";
const tools = new ToolRegistry([{ name: "charge", description: "fails", input: { type: "object" }, run: () => { throw new Error("card declined for ${SECRET}"); } }]);
const manifest = await startRun(
  { name: "p", nodes: [{ id: "a", tool: "charge", store_as: "a" }] },
  { host: { tools, agents: { find: () => undefined, names: () => [] }, escalation: undefined, budget: undefined }, nodeTypes: new NodeTypeTable([toolNodeType]) },
);
process.stdout.write(JSON.stringify(manifest));
`;

describe("delegation events without the root entry", () => {
  it("are redacted when a program imports only deputy/agents", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--input-type=module", "-e", AGENTS_ONLY],
      { cwd: ROOT },
    );
    const { seen } = JSON.parse(stdout) as { seen: { tool: string; arguments: unknown }[] };
    expect(seen.map((e) => e.tool)).toEqual(["lookup", "lookup"]);
    const text = JSON.stringify(seen);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("k-1234567890");
    expect(text).toContain("[REDACTED]");
  });

  it("and a run's records are redacted when a program imports only deputy/plan (and deputy/tools)", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", PLAN_ONLY], {
      cwd: ROOT,
    });
    const manifest = JSON.parse(stdout) as { status: string };
    expect(manifest.status).toBe("failed");
    expect(stdout).toContain("card declined");
    expect(stdout).not.toContain(SECRET);
  });
});
