import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { findRealModel } from "../../testing/real-model.js";
import { parseSpecValue } from "../delegate-spec.js";
import { expandCataloguedLocal, identify } from "./catalogued-spec.js";
import { MODEL_CATALOGUE } from "./model-catalogue.js";

const ONE_5B = "qwen2.5-coder-1.5b-instruct";
const measured = MODEL_CATALOGUE.find((m) => m.name === ONE_5B)!.settings!;

/** A model cache with a (fake) file where scripts/models.sh puts the 1.5B. */
function cache(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "deputy-catalogue-"));
  mkdirSync(join(dir, ONE_5B, "0.2.0"), { recursive: true });
  const file = join(dir, ONE_5B, "0.2.0", `${ONE_5B}.gguf`);
  writeFileSync(file, "not really a model");
  return { dir, file };
}

describe("local= with a catalogued model", () => {
  it("finds the cached file for the name and adds the model's measured settings", () => {
    const { dir, file } = cache();
    const { main, options } = parseSpecValue(expandCataloguedLocal(ONE_5B, dir));
    expect(main).toBe(file);
    expect(options).toEqual(parseSpecValue(`x,${measured}`).options);
    expect(options).toMatchObject({ selfcheck: "0.55", sure: "0.5" });
    expect(options.relevance).toMatch(/^encoder:/);
  });

  it("lets options given in the spec override the measured ones, and keeps the others", () => {
    const { dir } = cache();
    const { options } = parseSpecValue(
      expandCataloguedLocal(`${ONE_5B},decline=false,threads=1,relevance=false`, dir),
    );
    expect(options).toMatchObject({ decline: "false", threads: "1", relevance: "false", selfcheck: "0.55" });
  });

  it("says how to fetch a catalogued model that is not cached, in one error", () => {
    const empty = mkdtempSync(join(tmpdir(), "deputy-catalogue-"));
    let error: unknown;
    try {
      expandCataloguedLocal(ONE_5B, empty);
    } catch (e) {
      error = e;
    }
    expect(InvalidOptionError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(`deputy models pull ${ONE_5B}`);
    expect((error as Error).message).toContain(`bash scripts/models.sh ${ONE_5B}`);
  });

  it("leaves a file deputy does not know, and a name that is no catalogued model, as they are", () => {
    const { file } = cache();
    expect(expandCataloguedLocal(`${file},threads=2`)).toBe(`${file},threads=2`);
    expect(expandCataloguedLocal("no-such-model.gguf,threads=2")).toBe("no-such-model.gguf,threads=2");
    expect(identify(file)).toBeUndefined();
  });

  const real = findRealModel("qwen2.5-coder-0.5b-instruct");
  it.skipIf(!real)("knows a catalogued model's file by its digest, wherever it lies (real weights)", () => {
    expect(identify(real!)?.name).toBe("qwen2.5-coder-0.5b-instruct");
    const { options } = parseSpecValue(expandCataloguedLocal(`${real},threads=1`));
    expect(options).toMatchObject({ threads: "1", relevance: "encoder:0.262/0.45@0.3", sure: "0.3" });
  });
});
