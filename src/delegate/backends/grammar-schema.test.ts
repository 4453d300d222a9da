import { describe, expect, it } from "vitest";
import { buildProposalSchema } from "../proposal-schema.js";
import { LLAMA_SERVER_DIALECT, NODE_LLAMA_CPP_DIALECT, toGrammarSchema } from "./grammar-schema.js";

const tool = (parameters: Record<string, unknown>) => ({ name: "t", description: "d", parameters });

describe("toGrammarSchema", () => {
  it("rewrites the proposal schema into node-llama-cpp's subset", () => {
    const schema = buildProposalSchema([
      tool({
        type: "object",
        properties: {
          n: { type: "integer", minimum: 1 },
          s: { anyOf: [{ type: "string" }, { type: "null" }] },
        },
        required: ["n"],
      }),
    ]);
    const { schema: out, issues } = toGrammarSchema(schema, NODE_LLAMA_CPP_DIALECT);
    expect(issues).toEqual([]);
    expect(out.type).toBeUndefined();
    const branch = (out.oneOf as Record<string, any>[])[0]!;
    expect(branch.properties.name).toEqual({ const: "t" });
    const args = branch.properties.arguments;
    expect(args.properties.n).toEqual({ type: "integer" }); // minimum is checked by the gate, not the grammar
    expect(args.properties.s).toEqual({ oneOf: [{ type: "string" }, { type: "null" }] });
    expect(args.required).toBeUndefined();
  });

  it("opens objects without properties (JSON Schema's any object) and splits mixed type lists", () => {
    const { schema } = toGrammarSchema(
      { type: "object", properties: { o: { type: "object" }, m: { type: ["object", "null"] } } },
      NODE_LLAMA_CPP_DIALECT,
    );
    const props = schema.properties as Record<string, any>;
    expect(props.o).toEqual({ type: "object", additionalProperties: true });
    expect(props.m.oneOf).toHaveLength(2);
  });

  it("reports what changes the structure of valid values, with where it is", () => {
    const schema = buildProposalSchema([
      tool({
        type: "object",
        properties: { x: { not: { type: "string" } }, y: { allOf: [{ type: "string" }, { minLength: 2 }] } },
      }),
    ]);
    const node = toGrammarSchema(schema, NODE_LLAMA_CPP_DIALECT).issues;
    expect(node).toContain("`not` at /oneOf/0/properties/arguments/properties/x");
    expect(node).toContain("`allOf` at /oneOf/0/properties/arguments/properties/y");
    const server = toGrammarSchema(schema, LLAMA_SERVER_DIALECT).issues;
    expect(server).toEqual(["`not` at /oneOf/0/properties/arguments/properties/x"]);
  });

  it("reports remote refs and object-valued enums, and inlines a single allOf", () => {
    const { issues, schema } = toGrammarSchema(
      {
        type: "object",
        properties: {
          r: { $ref: "https://example.com/s.json" },
          e: { enum: [{ a: 1 }] },
          one: { allOf: [{ type: "string" }] },
        },
      },
      NODE_LLAMA_CPP_DIALECT,
    );
    expect(issues.some((i) => i.startsWith("`$ref`"))).toBe(true);
    expect(issues.some((i) => i.startsWith("`enum`"))).toBe(true);
    expect((schema.properties as Record<string, unknown>).one).toEqual({ type: "string" });
  });

  it("keeps the schema for llama-server, closing only objects that must be empty", () => {
    const schema = buildProposalSchema([
      tool({ type: "object", properties: { n: { type: "integer", minimum: 1 } } }),
    ]);
    const out = toGrammarSchema(schema, LLAMA_SERVER_DIALECT).schema as Record<string, any>;
    expect(out.oneOf[0]).toEqual((schema.oneOf as unknown[])[0]);
    expect(out.oneOf[1].properties.arguments).toEqual({
      type: "object",
      properties: {},
      maxProperties: 0,
      additionalProperties: false,
    });
    // A hand-written schema with only maxProperties: 0 is closed too, and the input is left untouched.
    const bare = { type: "object", properties: { a: { type: "object", maxProperties: 0 } } };
    const closed = toGrammarSchema(bare, LLAMA_SERVER_DIALECT).schema as Record<string, any>;
    expect(closed.properties.a).toEqual({ type: "object", maxProperties: 0, additionalProperties: false });
    expect((bare.properties.a as Record<string, unknown>).additionalProperties).toBeUndefined();
  });
});
