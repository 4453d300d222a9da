import { describe, expect, it } from "vitest";
import { countTokens, mockModel, pigLatin } from "./mock-model.js";

const user = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }] });

describe("mockModel", () => {
  it("is deterministic and counts tokens of the request and the answer", async () => {
    const m = mockModel();
    const call = {
      prompt: [{ role: "system" as const, content: "Be brief." }, user("How do I reset my password?")],
    };
    const one = await m.doGenerate(call);
    const two = await m.doGenerate(call);
    expect(one.content).toEqual(two.content);
    expect(one.content).toEqual([{ type: "text", text: "Owhay oday Iway esetray myay asswordpay?" }]);
    expect(one.usage.inputTokens.total).toBe(countTokens("Be brief. How do I reset my password?"));
    expect(one.usage.outputTokens.total).toBe(countTokens("Owhay oday Iway esetray myay asswordpay?"));
    expect(m.calls).toHaveLength(2);
  });

  it("calls each offered tool once with arguments that fit, then summarises the results", async () => {
    const m = mockModel();
    const tools = [
      {
        type: "function" as const,
        name: "lookup",
        description: "d",
        inputSchema: {
          type: "object" as const,
          properties: {
            id: { type: "integer" as const, minimum: 3 },
            kind: { type: "string" as const, enum: ["a", "b"] },
          },
          required: ["id"],
        },
      },
    ];
    const first = await m.doGenerate({ prompt: [user("find kind b")], tools });
    expect(first.content).toEqual([
      { type: "tool-call", toolCallId: "call_0_0", toolName: "lookup", input: '{"id":3,"kind":"b"}' },
    ]);
    expect(first.finishReason.unified).toBe("tool-calls");
    const second = await m.doGenerate({
      prompt: [
        user("find kind b"),
        {
          role: "assistant",
          content: [{ type: "tool-call", toolCallId: "c", toolName: "lookup", input: { id: 3 } }],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c",
              toolName: "lookup",
              output: { type: "json", value: { ok: 1 } },
            },
          ],
        },
      ],
      tools,
    });
    expect(second.content).toEqual([{ type: "text", text: 'Based on lookup: {"ok":1}' }]);
  });

  it("answers a JSON response format with a value that fits the schema", async () => {
    const m = mockModel();
    const r = await m.doGenerate({
      prompt: [user("Charged twice, this is urgent: high")],
      responseFormat: {
        type: "json",
        schema: {
          type: "object",
          properties: { urgency: { type: "string", enum: ["low", "high"] }, n: { type: "number" } },
          required: ["urgency"],
        },
      },
    });
    expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual({ urgency: "high", n: 1 });
  });

  it("plays scripted replies by step and honours a responder", async () => {
    const scripted = mockModel({ replies: ["first"] });
    expect((await scripted.doGenerate({ prompt: [user("x")] })).content).toEqual([
      { type: "text", text: "first" },
    ]);
    await expect(
      scripted.doGenerate({ prompt: [user("x"), { role: "assistant", content: [] }] }),
    ).rejects.toThrow(/a scripted reply for step 1 of mock model/);
    const responder = mockModel({ respond: ({ userText }) => userText.toUpperCase() });
    expect((await responder.doGenerate({ prompt: [user("hi")] })).content).toEqual([
      { type: "text", text: "HI" },
    ]);
  });

  it("stops waiting when its request is aborted", async () => {
    const m = mockModel({ latencyMs: 60_000 });
    const controller = new AbortController();
    const pending = m.doGenerate({ prompt: [user("x")], abortSignal: controller.signal });
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
  });

  it("streams the same answer", async () => {
    const { stream } = await mockModel().doStream({ prompt: [user("hello")] });
    const parts: any[] = [];
    for await (const p of stream as any) parts.push(p);
    expect(parts.find((p) => p.type === "text-delta").delta).toBe("ellohay");
    expect(parts.at(-1).type).toBe("finish");
  });
});

describe("pigLatin", () => {
  it("moves leading consonants and keeps capitals", () => {
    expect(pigLatin("Answer from the help centre")).toBe("Answerway omfray ethay elphay entrecay");
  });
});
