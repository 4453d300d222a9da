import { describe, expect, it } from "vitest";
import { builtInNodeTypes } from "../compose/index.js";
import { NodeTypeTable } from "../plan/node-type-table.js";
import { planJsonSchema } from "../plan/plan-json-schema.js";
import { toolNodeType } from "../plan/tool-node-type.js";
import { compileSchema } from "../schema/validator.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import { toolNodeResponseSchema } from "./tool-node-schema.js";

const tools = new ToolRegistry([
  defineTool({
    name: "get_weather",
    description: "Weather",
    input: {
      type: "object",
      properties: { city: { type: "string" }, days: { type: "integer" } },
      required: ["city"],
    },
    run: () => "sunny",
  }),
  defineTool({
    name: "send_message",
    description: "Send",
    input: {
      type: "object",
      properties: { to: { type: "string" }, text: { type: "string" } },
      required: ["to", "text"],
    },
    run: () => "sent",
  }),
]);
const plan = (nodes: unknown[]) => ({ name: "p", nodes });
const weather = { id: "w", tool: "get_weather", depends_on: [], args: { city: "Paris" }, store_as: "w" };
const notify = {
  id: "n",
  tool: "send_message",
  depends_on: ["w"],
  args: { to: "alice", text: "{artifacts.w}" },
  store_as: "n",
};

describe("the response schema narrowed to the allowed tools", () => {
  for (const [label, table] of [
    ["tool nodes only", new NodeTypeTable([toolNodeType])],
    ["the built-in node types", new NodeTypeTable(builtInNodeTypes)],
  ] as const) {
    it(`takes what validation takes of tool nodes, and refuses what small models got wrong (${label})`, () => {
      const fits = compileSchema(toolNodeResponseSchema(planJsonSchema(table), tools));
      expect(fits(plan([weather, notify])), JSON.stringify(fits.errors)).toBe(true);
      // A template where a number goes, as validation allows.
      expect(fits(plan([{ ...weather, args: { city: "Paris", days: "{inputs.days}" } }]))).toBe(true);
      // Argument values as schema-like objects; an argument the tool lacks; one it needs left out.
      expect(fits(plan([{ ...weather, args: { city: { type: "string", value: "Paris" } } }]))).toBe(false);
      expect(fits(plan([{ ...weather, args: { city: "Paris", country: "FR" } }]))).toBe(false);
      expect(fits(plan([{ ...notify, args: { to: "alice" } }]))).toBe(false);
      // A tool outside the allowlist, and a node without depends_on.
      expect(fits(plan([{ ...weather, tool: "wipe_database" }]))).toBe(false);
      const { depends_on: _, ...noDeps } = weather;
      expect(fits(plan([noDeps]))).toBe(false);
    });
  }

  it("leaves depends_on optional for a repair delta (which may not change it)", () => {
    const schema = planJsonSchema(new NodeTypeTable([toolNodeType]));
    const fits = compileSchema(toolNodeResponseSchema(schema, tools, { requireDependsOn: false }));
    const { depends_on: _, ...noDeps } = weather;
    expect(fits(plan([noDeps]))).toBe(true);
    expect(fits(plan([{ ...noDeps, args: { city: { type: "string", value: "Paris" } } }]))).toBe(false);
  });

  it("leaves the plan schema it was given unchanged", () => {
    const schema = planJsonSchema(new NodeTypeTable([toolNodeType]));
    const before = JSON.stringify(schema);
    toolNodeResponseSchema(schema, tools);
    expect(JSON.stringify(schema)).toBe(before);
  });
});
