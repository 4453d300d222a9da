import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../tools/define-tool.js";
import { defineAgent } from "./define-agent.js";
import { mockModel } from "./mock-model.js";

describe("an agent's call of a tool that requires approval", () => {
  it("is refused and never run (an agent's tool loop has no pause for a person); other calls run", async () => {
    const ran: string[] = [];
    const tool = (name: string, needsApproval?: boolean) =>
      defineTool({
        name,
        description: name,
        input: z.object({ to: z.string() }),
        ...(needsApproval === undefined ? {} : { needsApproval }),
        run: () => (ran.push(name), "done"),
      });
    const agent = defineAgent({
      name: "Sender",
      backend: mockModel(), // calls every offered tool once, then answers
      tools: [tool("send", true), tool("look")],
      actions: { go: ({ q }: { q: string }) => q },
    });
    const r = await agent.run("go", { q: "send it" });
    expect(ran).toEqual(["look"]);
    const outputs = Object.fromEntries(r.steps[0]!.toolResults.map((t) => [t.toolName, t.output]));
    expect(outputs.send).toMatchObject({ error: "approval_required" });
    expect(outputs.look).toBe("done");
  });
});
