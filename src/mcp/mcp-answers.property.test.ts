/**
 * MCP servers' answers are untrusted: whatever JSON a server sends as a tool list or a call result, deputy reads
 * it into its own shapes or names what is wrong — it never throws anything else, never keeps a hint that is not
 * a boolean, and never lets a result past the size bound.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { McpSourceError } from "../errors/mcp-source-error.js";
import { compileSchema } from "../schema/validator.js";
import { McpAnswerError, readCallAnswer, readToolPage } from "./mcp-answers.js";
import { mcpToolAsTool } from "./mcp-tools.js";

const json = fc.jsonValue({ maxDepth: 4 });
/** A value that is sometimes of the right shape, often not: what a careless or hostile server sends. */
const maybe = <T>(good: fc.Arbitrary<T>) => fc.oneof(good, json);
const schema = fc.oneof(
  fc.record({ type: fc.constant("object"), properties: fc.dictionary(fc.string(), json) }),
  json,
);
const tool = fc.record(
  {
    name: maybe(fc.string({ minLength: 1 })),
    description: maybe(fc.string()),
    title: maybe(fc.string()),
    inputSchema: schema,
    annotations: maybe(
      fc.record(
        {
          readOnlyHint: maybe(fc.boolean()),
          destructiveHint: maybe(fc.boolean()),
          title: maybe(fc.string()),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { requiredKeys: [] },
);
const toolList = fc.oneof(
  fc.record(
    { tools: fc.array(tool, { maxLength: 5 }), nextCursor: maybe(fc.string()) },
    { requiredKeys: [] },
  ),
  json,
);

describe("reading a tools/list answer", () => {
  it("gives tools of deputy's shape, or an McpAnswerError, for any answer", () => {
    fc.assert(
      fc.property(toolList, (answer) => {
        let page;
        try {
          page = readToolPage(answer);
        } catch (error) {
          expect(error).toBeInstanceOf(McpAnswerError);
          expect((error as Error).message).not.toMatch(/\n/);
          return;
        }
        for (const t of page.tools) {
          expect(typeof t.name).toBe("string");
          expect(t.name.length).toBeGreaterThan(0);
          expect(t.inputSchema.type).toBe("object");
          for (const [key, value] of Object.entries(t.annotations))
            expect(typeof value).toBe(key === "title" ? "string" : "boolean");
          if (t.description !== undefined) expect(typeof t.description).toBe("string");
        }
        if (page.nextCursor !== undefined) expect(typeof page.nextCursor).toBe("string");
      }),
      { numRuns: 500 },
    );
  });

  it("keeps a well-formed tool as it was sent", () => {
    const page = readToolPage({
      tools: [
        {
          name: "read_file",
          description: "Read a file",
          inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
          annotations: { readOnlyHint: true, destructiveHint: "no", openWorldHint: false },
          outputSchema: { type: "object" },
        },
      ],
      nextCursor: "2",
    });
    expect(page).toEqual({
      tools: [
        {
          name: "read_file",
          description: "Read a file",
          inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
          annotations: { readOnlyHint: true, openWorldHint: false },
        },
      ],
      nextCursor: "2",
    });
  });

  it("names the tool whose input schema is not an object schema", () => {
    expect(() => readToolPage({ tools: [{ name: "x", inputSchema: "a string" }] })).toThrow(
      /tool "x" has an input schema that is not a JSON Schema object/,
    );
    expect(() => readToolPage({ tools: [{ name: "y", inputSchema: { type: "string" } }] })).toThrow(
      /tool "y" has an input schema of type "string"/,
    );
    expect(() => readToolPage({ tools: "none" })).toThrow(/no `tools` list/);
  });

  it("never reads a field through the prototype", () => {
    const answer = JSON.parse('{"__proto__": {"tools": [{"name": "evil"}]}}') as unknown;
    expect(() => readToolPage(answer)).toThrow(McpAnswerError);
  });
});

const content = fc.array(
  fc.oneof(
    fc.record({ type: fc.constant("text"), text: maybe(fc.string()) }),
    fc.record({ type: fc.constant("image"), data: fc.base64String(), mimeType: fc.constant("image/png") }),
    json,
  ),
  { maxLength: 4 },
);
const callAnswer = fc.oneof(
  fc.record(
    { content: maybe(content), structuredContent: json, isError: maybe(fc.boolean()) },
    { requiredKeys: [] },
  ),
  json,
);

describe("reading a tools/call answer", () => {
  it("is a value, a tool error, an invalid answer or too large, and never throws", () => {
    fc.assert(
      fc.property(callAnswer, fc.integer({ min: 1, max: 400 }), (answer, maxBytes) => {
        const outcome = readCallAnswer(answer, maxBytes);
        const size = Buffer.byteLength(JSON.stringify(answer), "utf8");
        if (size > maxBytes) expect(outcome).toMatchObject({ ok: false, reason: "too_large" });
        else if (outcome.ok) expect(JSON.stringify(outcome.value).length).toBeLessThanOrEqual(size);
        else expect(outcome.message).not.toMatch(/\n/);
        const isError = typeof answer === "object" && answer !== null && Object.hasOwn(answer, "isError");
        if (outcome.ok && isError) expect((answer as { isError: unknown }).isError).not.toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("gives structured content first, then the one text, then the blocks", () => {
    const big = 1 << 20;
    expect(
      readCallAnswer({ content: [{ type: "text", text: "{}" }], structuredContent: { a: 1 } }, big),
    ).toEqual({ ok: true, value: { a: 1 } });
    expect(readCallAnswer({ content: [{ type: "text", text: "hello" }] }, big)).toEqual({
      ok: true,
      value: "hello",
    });
    const blocks = [
      { type: "text", text: "a" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ];
    expect(readCallAnswer({ content: blocks }, big)).toEqual({ ok: true, value: blocks });
  });

  it("turns isError into the server's text on one line", () => {
    expect(
      readCallAnswer({ content: [{ type: "text", text: "no such\nfile" }], isError: true }, 1000),
    ).toEqual({ ok: false, reason: "tool_error", message: "no such file" });
  });
});

/** Tools that pass the reader, with names and property schemas that deputy may or may not accept. */
const listedTool = fc.record({
  name: fc.oneof(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,20}$/), fc.string({ minLength: 1 })),
  description: fc.option(fc.string(), { nil: undefined }),
  inputSchema: fc.record({
    type: fc.constant("object"),
    properties: fc.dictionary(
      fc.string(),
      fc.oneof(fc.record({ type: fc.constantFrom("string", "number", "boolean", "frobnicate") }), json),
      { maxKeys: 3 },
    ),
  }),
  annotations: fc.record(
    { readOnlyHint: maybe(fc.boolean()), destructiveHint: maybe(fc.boolean()) },
    { requiredKeys: [] },
  ),
});

describe("an MCP tool list as deputy tools", () => {
  const run = () => Promise.resolve(null);
  it("gives tools whose schemas compile and whose hints decide only for a trusted server, or one clear error", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          toolList,
          fc.array(listedTool, { maxLength: 3 }).map((tools) => ({ tools })),
        ),
        fc.boolean(),
        (answer, trusted) => {
          let page;
          try {
            page = readToolPage(answer);
          } catch {
            return; // the reader's refusal, checked above
          }
          for (const d of page.tools) {
            const as = { name: "t", server: '"srv"', prefix: "srv", trusted };
            let tool;
            try {
              tool = mcpToolAsTool(d, as, run);
            } catch (error) {
              expect(McpSourceError.isInstance(error), String(error)).toBe(true);
              expect(error).toMatchObject({ code: "MCP_TOOLS_INVALID", tool: d.name });
              expect((error as Error).message).not.toMatch(/\n/);
              continue;
            }
            expect(() => compileSchema(tool.parameters)).not.toThrow();
            expect(tool.description.trim()).not.toBe("");
            expect(tool.delegateSafe).toBe(trusted && d.annotations.readOnlyHint === true);
            // Only a trusted server's destructiveHint asks for approval; an untrusted one's decides nothing.
            expect(tool.needsApproval === true).toBe(trusted && d.annotations.destructiveHint === true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
