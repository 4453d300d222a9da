import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../errors/index.js";
import { LlamaServerDelegate } from "./llama-server-delegate.js";
import { createDelegateSpecRegistry } from "./register-specs.js";

const specs = createDelegateSpecRegistry();
const createDelegateFromSpec = (spec: string) => specs.create(spec);

describe("confidence= in llama.cpp delegate specs", () => {
  it("takes answer, choice, false or true, and refuses anything else naming the spec", async () => {
    for (const value of ["answer", "choice", "false", "true"]) {
      const d = await createDelegateFromSpec(`llama-server=http://127.0.0.1:9,confidence=${value}`);
      expect(d).toBeInstanceOf(LlamaServerDelegate);
      await d.close();
    }
    const bad = createDelegateFromSpec("llama-server=http://127.0.0.1:9,confidence=maybe");
    await expect(bad).rejects.toSatisfy((e: unknown) => InvalidOptionError.isInstance(e));
    await expect(bad).rejects.toThrow(/confidence.*llama-server=http/);
  });
});

describe("jump= in a local= spec", () => {
  it("takes true or false, and refuses anything else naming the spec, before loading any model", async () => {
    const bad = createDelegateFromSpec("local=/nonexistent/model.gguf,jump=maybe");
    await expect(bad).rejects.toSatisfy((e: unknown) => InvalidOptionError.isInstance(e));
    await expect(bad).rejects.toThrow(/jump in local=\/nonexistent\/model\.gguf,jump=maybe.*true or false/);
    for (const value of ["true", "false"]) {
      const d = await createDelegateFromSpec(`local=/nonexistent/model.gguf,jump=${value}`);
      await d.close();
    }
  });
});
