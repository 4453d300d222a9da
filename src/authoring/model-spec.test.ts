import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defineTool } from "../tools/define-tool.js";
import { authorPlan } from "./author-plan.js";
import { modelFromSpec } from "./model-spec.js";

describe("modelFromSpec", () => {
  const dir = mkdtempSync(join(tmpdir(), "deputy-spec-"));

  it("refuses specs it does not know, URLs that are not http(s) or carry credentials, and unknown options", async () => {
    for (const spec of [
      "gpt",
      "scripted=",
      "openai=",
      "openai=ftp://x",
      "openai=http://u:p@h/v1",
      "openai=http://h/v1,temp=1",
    ])
      await expect(modelFromSpec(spec), spec).rejects.toMatchObject({ code: "INVALID_OPTION" });
  });

  it("reads a scripted file: a missing one and a line that is not JSON are errors", async () => {
    await expect(modelFromSpec(`scripted=${join(dir, "none.jsonl")}`)).rejects.toMatchObject({
      code: "SCRIPTED_FILE_NOT_FOUND",
    });
    writeFileSync(join(dir, "bad.jsonl"), '"fine"\n{oops\n');
    await expect(modelFromSpec(`scripted=${join(dir, "bad.jsonl")}`)).rejects.toThrow(/bad\.jsonl:2/);
  });

  it("asks an OpenAI-compatible server with the plan schema as a json_schema response format", async () => {
    const bodies: Record<string, any>[] = [];
    const plan = { name: "p", nodes: [{ id: "a", tool: "lookup", args: { key: "k" }, store_as: "a" }] };
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        bodies.push(JSON.parse(body));
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            id: "c1",
            object: "chat.completion",
            created: 0,
            model: "m",
            choices: [
              {
                index: 0,
                message: { role: "assistant", content: JSON.stringify(plan) },
                finish_reason: "stop",
              },
            ],
            usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
          }),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      const { model, label } = await modelFromSpec(`openai=${url},model=tiny`);
      expect(label).toBe(`openai=${url},model=tiny`);
      const lookup = defineTool({
        name: "lookup",
        description: "Look up",
        input: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
        run: () => 1,
      });
      const result = await authorPlan({ objective: "look k up", tools: [lookup], model });
      expect(result.ok).toBe(true);
      expect(result.usage).toEqual({ calls: 1, inputTokens: 100, outputTokens: 20, totalTokens: 120 });
      expect(bodies[0]!.model).toBe("tiny");
      expect(bodies[0]!.response_format.type).toBe("json_schema");
      expect(bodies[0]!.response_format.json_schema.schema.properties).toHaveProperty("nodes");
    } finally {
      server.close();
    }
  });
});
