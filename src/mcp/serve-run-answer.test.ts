/**
 * What a plan server answers about a run, from its manifest: the outcomes the HTTP and stdio tests do not reach
 * (partial, completed without the returned artifact, a paused run whose decisions are all made, many open
 * escalations), and for any artifact a tool or model could store: valid JSON, no known secret.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { NodeManifest, RunManifest } from "../plan/run-manifest.js";
import { registerSecret } from "../runtime/known-secrets.js";
import { inboxUrl, runAnswer } from "./serve-run-answer.js";

const tool = { name: "triage", returns: "out" };

function manifest(
  status: RunManifest["status"],
  nodes: Record<string, Partial<NodeManifest>>,
  artifacts = {},
) {
  return {
    runId: "r1",
    plan: "triage",
    status,
    fingerprint: "f",
    createdAt: "",
    updatedAt: "",
    counts: {} as RunManifest["counts"],
    nodes: Object.fromEntries(
      Object.entries(nodes).map(([id, n]) => [
        id,
        { type: "tool", status: "ok", storedKeys: [], errors: [], escalations: [], attempts: 1, ...n },
      ]),
    ),
    artifacts,
  } as RunManifest;
}

const answer = (result: ReturnType<typeof runAnswer>) =>
  JSON.parse((result.content[0] as { text: string }).text) as Record<string, any>;

describe("runAnswer", () => {
  it("answers a partial run with its result and errors, not as a tool error", () => {
    const m = manifest(
      "partial",
      { fan: { status: "partial", errors: [{ code: "TOOL_FAILED", message: "boom", item: 2 }] } },
      { out: [1, 2] },
    );
    const result = runAnswer(m, tool, {});
    expect(result.isError).toBeFalsy();
    expect(answer(result)).toMatchObject({
      status: "partial",
      result: [1, 2],
      errors: [{ node: "fan", item: 2, code: "TOOL_FAILED", message: "boom" }],
    });
  });

  it("does not make up a result: a completed run without the returned artifact is a tool error", () => {
    const result = runAnswer(manifest("completed", { a: { status: "skipped" } }), tool, {});
    expect(result.isError).toBe(true);
    expect(answer(result).errors).toEqual([expect.objectContaining({ code: "NO_RESULT" })]);
  });

  it("lists at most 20 open escalations and counts the rest; a paused run whose decisions are made says to resume", () => {
    const escalations = Array.from({ length: 25 }, (_, item) => ({
      nodeId: "fan",
      item,
      verdict: "low_confidence",
      reason: "low",
      createdAt: "",
    }));
    const open = answer(
      runAnswer(manifest("escalated", { fan: { escalations } }), tool, { store: "/x y/runs.db" }),
    );
    expect(open.waiting).toHaveLength(20);
    expect(open.moreWaiting).toBe(5);
    expect(open.waiting[3].resolve).toBe(
      "deputy resolve r1 fan --item 3 (--call JSON | --value JSON | --skip) --store '/x y/runs.db'",
    );
    const decided = escalations.map((e) => ({ ...e, resolution: { kind: "skip" as const } }));
    const made = answer(runAnswer(manifest("escalated", { fan: { escalations: decided } }), tool, {}));
    expect(made.waiting).toEqual([]);
    expect(made.message).toMatch(/every decision is made and it waits to be resumed/);
    expect(made.resume).toBe("deputy resume r1");
  });

  it("links to the console's inbox without its token", () => {
    expect(inboxUrl("http://127.0.0.1:4680/#token=abc123", "r 1")).toBe(
      "http://127.0.0.1:4680/#/inbox?runId=r%201",
    );
    expect(inboxUrl("https://ops.example/deputy/?token=abc123", "r1")).toBe(
      "https://ops.example/deputy/#/inbox?runId=r1",
    );
  });

  it("answers any stored artifact as valid JSON with no known secret in it", () => {
    const secret = "tok-7f3a9c1e55d2b8aa";
    registerSecret(secret);
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, text) => {
        const result = runAnswer(
          manifest(
            "completed",
            {},
            { out: { value, text: `${text}${secret}${text}`, password: "hunter22" } },
          ),
          tool,
          {},
        );
        const raw = (result.content[0] as { text: string }).text;
        const parsed = JSON.parse(raw);
        expect(parsed.status).toBe("completed");
        expect(raw).not.toContain(secret);
        expect(raw).not.toContain("hunter22");
      }),
      { numRuns: 200 },
    );
  });

  it("names in the resume line the headers a resume needs again, by their file or name, never a value", () => {
    const paused = manifest("interrupted", { a: { status: "pending" } });
    const hints = {
      store: "/srv/runs.db",
      tools: ["mcp+https://tools.example.com/mcp"],
      resumeArgs: ["--mcp-headers-file", "/srv/my headers.txt", "--mcp-header", "Authorization: …"],
    };
    expect(answer(runAnswer(paused, tool, hints)).resume).toBe(
      "deputy resume r1 --store /srv/runs.db --tools mcp+https://tools.example.com/mcp --mcp-headers-file '/srv/my headers.txt' --mcp-header 'Authorization: …'",
    );
  });
});
