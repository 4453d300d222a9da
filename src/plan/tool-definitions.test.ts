import { describe, expect, it } from "vitest";
import { RunError } from "../errors/run-error.js";
import { resumeRun, runPlan } from "../compose/index.js";
import { MemoryRunStore } from "../store/memory-run-store.js";
import { defineTool, type ToolDefinition } from "../tools/define-tool.js";

const lookup: ToolDefinition = {
  name: "lookup",
  description: "Find a user",
  input: { type: "object", properties: { email: { type: "string" } }, required: ["email"] },
  run: ({ email }: { email: string }) => ({ email }),
};
let failing = true;
const notify = defineTool({
  name: "notify",
  description: "Tell them",
  input: { type: "object", properties: {} },
  run: () => {
    if (failing) throw new Error("mail server down");
    return "sent";
  },
});
const unused = defineTool({ name: "unused", description: "Not in the plan", input: {}, run: () => 1 });

const plan = {
  name: "defs",
  nodes: [
    { id: "find", tool: "lookup", args: { email: "ada@example.com" }, store_as: "user" },
    { id: "tell", tool: "notify", depends_on: ["find"], args: {}, store_as: "told" },
  ],
};

/** A run that failed at `tell`, so there is something to resume. */
async function failedRun() {
  failing = true;
  const store = new MemoryRunStore();
  const first = await runPlan(plan, { tools: [defineTool(lookup), notify, unused], store });
  expect(first.status).toBe("failed");
  failing = false;
  return { store, runId: first.runId };
}

async function refusal(runId: string, store: MemoryRunStore, tools: unknown[]): Promise<RunError> {
  const error = await resumeRun(runId, { tools: tools as never, store }).catch((e: unknown) => e);
  expect(RunError.isInstance(error), String(error)).toBe(true);
  expect((error as RunError).code).toBe("TOOLS_CHANGED");
  return error as RunError;
}

describe("the tool definitions a run was validated against", () => {
  it("are kept with the run: only the tools its plan uses, part by part", async () => {
    const { store, runId } = await failedRun();
    const stored = (await store.load(runId))!.run.options.toolDefinitions!;
    expect(Object.keys(stored).sort()).toEqual(["lookup", "notify"]);
    expect(stored.lookup).toEqual({
      description: expect.stringMatching(/^[0-9a-f]{16}$/),
      input: expect.stringMatching(/^[0-9a-f]{16}$/),
      annotations: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });

  it("let the same tools resume, and a tool the plan does not use change freely", async () => {
    const { store, runId } = await failedRun();
    const changedUnused = defineTool({ name: "unused", description: "Changed", input: {}, run: () => 2 });
    const resumed = await resumeRun(runId, { tools: [defineTool(lookup), notify, changedUnused], store });
    expect(resumed.status).toBe("completed");
  });

  it("refuse a resume whose tools define a used tool otherwise, naming the tool and each part that changed", async () => {
    const { store, runId } = await failedRun();
    const described = defineTool({ ...lookup, description: "Find a user by e-mail" });
    expect((await refusal(runId, store, [described, notify])).message).toMatch(
      /"lookup" \(its description\) differs from the definition the plan was validated against/,
    );
    const widened = defineTool({
      ...lookup,
      input: { type: "object", properties: { email: { type: "string" }, admin: { type: "boolean" } } },
    });
    expect((await refusal(runId, store, [widened, notify])).message).toMatch(/"lookup" \(its input schema\)/);
    const safe = defineTool({ ...lookup, delegateSafe: true });
    const hinted = defineTool({
      name: "notify",
      description: "Tell them",
      input: { type: "object", properties: {} },
      annotations: { readOnlyHint: true },
      run: () => "sent",
    });
    expect((await refusal(runId, store, [safe, hinted])).message).toMatch(
      /"lookup" \(its annotations\); "notify" \(its annotations\) differ/,
    );
    // Refused before anything ran: the run is as it was.
    expect((await store.load(runId))!.run.status).toBe("failed");
  });

  it("are not checked for a run stored before they were kept", async () => {
    const { store, runId } = await failedRun();
    const loaded = (await store.load(runId))!;
    delete loaded.run.options.toolDefinitions;
    const old = new MemoryRunStore();
    await old.createRun(loaded.run);
    const described = defineTool({ ...lookup, description: "Find a user by e-mail" });
    expect((await resumeRun(runId, { tools: [described, notify], store: old })).status).toBe("completed");
  });
});
