import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../main.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-models-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[]) {
  let out = "";
  let err = "";
  const code = await main(args, { stdout: (t) => (out += t), stderr: (t) => (err += t), isTTY: false });
  return { code, out, err };
}

describe("deputy models tiny", () => {
  it("writes a seeded GGUF file, the same bytes for the same seed", async () => {
    const a = join(dir, "a.gguf");
    const b = join(dir, "b.gguf");
    const first = await cli(["models", "tiny", "--out", a, "--seed", "7"]);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/a\.gguf: \d+ bytes, vocabulary 264, seed 7/);
    await cli(["models", "tiny", "--out", b, "--seed", "7"]);
    const bytes = readFileSync(a);
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("GGUF");
    expect(bytes.readUInt32LE(4)).toBe(3);
    expect(readFileSync(b).equals(bytes)).toBe(true);
  });

  it("rejects a bad seed or shape", async () => {
    const bad = await cli(["models", "tiny", "--out", join(dir, "c.gguf"), "--seed", "x"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/Expected `--seed` to be an integer/);
    expect((await cli(["models", "tiny", "--out", join(dir, "c.gguf"), "--shape", "huge"])).code).toBe(2);
  });
});
