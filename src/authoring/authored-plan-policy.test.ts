/**
 * A model-written plan obeys the rules a repair's delta does (issue 38, item 1): the rules its node types declare
 * (a field a model never sets, a bar at the host's floor), placeholders deputy knows, artifacts passed as
 * artifacts — each breach its own issue code, told to the model in the correction round — and its calls of
 * tools with side effects listed for a person's approval.
 */
import { describe, expect, it } from "vitest";
import { createHost } from "../compose/index.js";
import { ScriptedDelegate } from "../delegate/scripted-delegate.js";
import { validatePlan } from "../plan/validate-plan.js";
import { defineTool } from "../tools/define-tool.js";
import { authorPlan, type AuthorPlanOptions } from "./author-plan.js";
import { renderApprovalRequest } from "./authored-plan-policy.js";
import { scriptedModel } from "./scripted-model.js";

const listRepos = defineTool({
  name: "list_repos",
  description: "The repositories with their open issue counts",
  input: { type: "object", properties: { top: { type: "integer" } } },
  delegateSafe: true,
  run: () => [{ name: "a", open: 3 }],
});
const post = defineTool({
  name: "post_message",
  description: "Post a message to a channel",
  input: {
    type: "object",
    properties: { channel: { type: "string" }, text: {} },
    required: ["channel", "text"],
  },
  run: () => "posted",
});
const tools = [listRepos, post];
const { host, nodeTypes } = createHost({ tools, delegates: [new ScriptedDelegate({ entries: [] })] });

const repos = { id: "repos", tool: "list_repos", args: { top: 3 }, store_as: "repos" };
const postIt = (text: unknown) => ({
  id: "post",
  tool: "post_message",
  depends_on: ["repos"],
  args: { channel: "#triage", text },
  store_as: "posted",
});
const pick = (extra: Record<string, unknown> = {}) => ({
  id: "pick",
  type: "delegate",
  depends_on: ["repos"],
  instruction: "Post the names of {artifacts.repos}",
  tools: ["post_message"],
  store_as: "picked",
  ...extra,
});
const plan = (...nodes: unknown[]) => ({ name: "triage", nodes });

async function author(answers: unknown[], extra: Partial<AuthorPlanOptions> = {}) {
  const model = await scriptedModel(answers.map((a) => JSON.stringify(a)));
  const result = await authorPlan({
    objective: "Post the top repos",
    tools,
    model,
    host,
    nodeTypes,
    ...extra,
  });
  return { result, model };
}

describe("a model-written plan under the policy repairs share", () => {
  it("refuses each breach with its own code, and tells the model in the correction round", async () => {
    // What the 1.5B wrote for this objective (issue 38), plus the delegate fields a model must not set.
    const bad = plan(
      repos,
      postIt("Top: {open_issues[0]}"),
      { ...postIt("repos"), id: "again", store_as: "again" },
      pick({ allow_side_effects: true, min_confidence: 0.3 }),
    );
    const { result, model } = await author([bad, bad]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.code, i.nodeId])).toEqual(
      expect.arrayContaining([
        ["allow_side_effects", "pick"],
        ["below_confidence_floor", "pick"],
        ["unknown_placeholder", "post"],
        ["artifact_as_text", "again"],
      ]),
    );
    expect(result.issues.every((i) => i.severity === "error")).toBe(true);
    // The rules were said up front, as the delegate node type declares them.
    const system = JSON.stringify(model.doGenerateCalls[0]!.prompt[0]);
    expect(system).toContain(
      "On a delegate node: `min_confidence` is at least 0.8; never set `allow_side_effects`.",
    );
    const correction = JSON.stringify(model.doGenerateCalls[1]!.prompt);
    for (const code of [
      "allow_side_effects",
      "below_confidence_floor",
      "unknown_placeholder",
      "artifact_as_text",
    ])
      expect(correction).toContain(code);
  });

  it("accepts the corrected plan: a bar left out stands at the floor; the floor is the host's to set", async () => {
    const fixed = plan(repos, postIt("Top: {artifacts.repos}"), pick());
    const { result } = await author([fixed]);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const nodes = result.plan.nodes as Record<string, unknown>[];
    expect(nodes[2]!.min_confidence).toBe(0.8);
    const lower = await author([plan(repos, pick({ min_confidence: 0.6 }))], { confidenceFloor: 0.5 });
    expect(lower.result.ok).toBe(true);
    const refused = await author([
      plan(repos, pick({ min_confidence: 0.6 })),
      plan(repos, pick({ min_confidence: 0.6 })),
    ]);
    expect(refused.result.ok).toBe(false);
    await expect(author([fixed], { confidenceFloor: 2 })).rejects.toThrow(/confidenceFloor/);
  });

  it("lists the tool nodes that call tools with side effects, not the delegate's (its gate judges those)", async () => {
    const { result } = await author([plan(repos, postIt("Top: {artifacts.repos}"), pick())]);
    expect(result.ok && result.needsApproval).toEqual([
      {
        nodeId: "post",
        tools: ["post_message"],
        arguments: { args: { channel: "#triage", text: "Top: {artifacts.repos}" } },
      },
    ]);
    const readOnly = await author([plan(repos)]);
    expect(readOnly.result.ok && readOnly.result.needsApproval).toEqual([]);
  });

  it("keeps both as warnings in a hand-written plan", () => {
    const report = validatePlan(plan(repos, postIt("Top: {open_issues[0]}")), { host, nodeTypes });
    expect(report.ok).toBe(true);
    expect(report.issues.map((i) => [i.code, i.severity])).toEqual([["unknown_placeholder", "warning"]]);
  });

  it("shows what waits for approval as terminal-safe text", () => {
    const text = renderApprovalRequest([
      {
        nodeId: "p\u001b[2Jost",
        tools: ["post_message"],
        arguments: { args: { text: "hi\u202e\u009b31m" } },
      },
    ]);
    expect(text).toContain("post_message");
    for (const c of ["\u001b", "\u009b", "\u202e"]) expect(text).not.toContain(c);
    expect(text).toContain("\\u001b[2J");
    expect(text).toContain("\\u202e");
  });
});
