import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineAgent } from "./define-agent.js";
import { delegateTo } from "./delegate-to.js";
import { delegation } from "./contract.js";
import { defineTool } from "../tools/define-tool.js";

const backend = { provider: "mock" };
const input = z.object({ text: z.string() });

const multi = defineAgent({
  name: "Writer",
  backend,
  delegations: [
    delegation("summarize", { description: "Summarize text", input, budget: { maxCalls: 2, timeout: 5 } }),
    delegation("translate", { description: "Translate text", input }),
  ],
  actions: {
    summarize: ({ text }: { text: string }) => text,
    translate: ({ text }: { text: string }) => text,
    polish: ({ text }: { text: string }) => text,
  },
});
const bare = defineAgent({
  name: "Vendor",
  backend,
  actions: { classify: ({ body }: { body: string }) => body },
});

describe("delegateTo", () => {
  it("turns every contract into a tool, or the ones `only`/`except` keep", () => {
    expect(delegateTo(multi).bindings.map((b) => b.tool)).toEqual(["summarize", "translate"]);
    expect(delegateTo(multi, { only: "translate" }).bindings.map((b) => b.tool)).toEqual(["translate"]);
    expect(delegateTo(multi, { except: ["translate"] }).bindings.map((b) => b.tool)).toEqual(["summarize"]);
  });

  it("renames with `as` and overrides the contract's budget key by key", () => {
    const [b] = delegateTo(multi, {
      only: "summarize",
      as: "tldr",
      budget: { timeout: 10, maxTokens: 100 },
    }).bindings;
    expect(b).toMatchObject({
      tool: "tldr",
      action: "summarize",
      budget: { maxCalls: 2, timeout: 10, maxTokens: 100 },
    });
    expect(multi.contracts[0]!.budget).toEqual({ maxCalls: 2, timeout: 5 }); // the contract is untouched
  });

  it("declares the contract at the call site for an agent you do not own", () => {
    const [b] = delegateTo(bare, {
      action: "classify",
      description: "Classify a support ticket",
      input: z.object({ body: z.string() }),
    }).bindings;
    expect(b).toMatchObject({
      tool: "classify",
      action: "classify",
      description: "Classify a support ticket",
    });
    expect(b!.parameters).toMatchObject({ required: ["body"], additionalProperties: false });
  });

  it("explains a target that is not an agent", () => {
    expect(() => delegateTo({ name: "x" } as never)).toThrowError(
      /expects an agent made by defineAgent\(\), got an object that is not an agent/,
    );
    expect(() => delegateTo(class Foo {} as never)).toThrowError(/got a function \(Foo\)/);
  });

  it("explains an unknown action, with a did-you-mean and the list", () => {
    expect(() => delegateTo(bare, { action: "clasify", description: "d", input })).toThrowError(
      /no action `clasify` \(did you mean `classify`\?\)\. Its actions: classify/,
    );
  });

  it("suggests both fixes for a target with no contracts", () => {
    expect(() => delegateTo(bare)).toThrowError(
      /does not declare any delegations\. Either add one to it .*or declare the contract here: delegateTo\(Vendor, \{ action:/,
    );
    expect(() => delegateTo(bare, { action: "classify" })).toThrowError(
      /declare it here with both `description` and `input`/,
    );
  });

  it("lists the declared names for unknown `only`/`except` names", () => {
    expect(() => delegateTo(multi, { only: ["summarise"] })).toThrowError(
      /`only` names `summarise`.*Declared delegations: summarize, translate/,
    );
    expect(() => delegateTo(multi, { except: "nope" })).toThrowError(/`except` names `nope`/);
  });

  it("refuses a filter that leaves nothing", () => {
    expect(() => delegateTo(multi, { except: ["summarize", "translate"] })).toThrowError(
      /nothing is left to delegate/,
    );
  });

  it("refuses `as` or `description` with several contracts and says to narrow with `only`", () => {
    expect(() => delegateTo(multi, { as: "x" })).toThrowError(
      /`as` renames one tool, but `Writer` exposes 2 delegations \(summarize, translate\)\. Narrow with `only: "summarize"`/,
    );
    expect(() => delegateTo(multi, { description: "x" })).toThrowError(/`description` describes one tool/);
  });

  it("validates the budget at the call site", () => {
    expect(() => delegateTo(multi, { budget: { max_tokens: 5 } as never })).toThrowError(
      /did you mean `maxTokens`/,
    );
  });
});

describe("defineAgent with delegateTo", () => {
  it("refuses a tool name that collides and says to rename with `as`", () => {
    const t = defineTool({ name: "summarize", description: "local", input: z.object({}), run: () => 1 });
    expect(() =>
      defineAgent({
        name: "P",
        backend,
        tools: [t],
        delegateTo: [delegateTo(multi, { only: "summarize" })],
        actions: { a: () => "x" },
      }),
    ).toThrowError(
      /tool `summarize` of delegateTo\(Writer\) collides with one of its own tools; rename it with `as: "…"`/,
    );
    expect(() =>
      defineAgent({
        name: "P",
        backend,
        delegateTo: [delegateTo(multi), delegateTo(multi, { only: "translate" })],
        actions: { a: () => "x" },
      }),
    ).toThrowError(/collides with the tool of delegateTo\(Writer\)/);
    expect(() =>
      defineAgent({
        name: "P",
        backend,
        delegateTo: [delegateTo(multi), delegateTo(multi, { only: "translate", as: "translate_again" })],
        actions: { a: () => "x" },
      }),
    ).not.toThrow();
  });

  it("requires each contract to name an action", () => {
    expect(() =>
      defineAgent({
        name: "S",
        backend,
        delegations: [delegation("x", { description: "d", input })],
        actions: { y: () => "y" },
      }),
    ).toThrowError(/delegation `x` has no action of that name; add `actions\.x`/);
  });

  it("checks maxDepth, maxSteps, the backend and the actions", () => {
    expect(() => defineAgent({ name: "S", backend, maxDepth: -1, actions: { a: () => "a" } })).toThrowError(
      /maxDepth/,
    );
    expect(() => defineAgent({ name: "S", backend, maxSteps: 0, actions: { a: () => "a" } })).toThrowError(
      /maxSteps/,
    );
    expect(() =>
      defineAgent({ name: "S", backend: { provider: "mok" }, actions: { a: () => "a" } }),
    ).toThrowError(/Unknown provider `mok` \(did you mean `mock`\?\)/);
    expect(() => defineAgent({ name: "S", backend, actions: {} })).toThrowError(/at least one action/);
  });
});
