/**
 * A subpath loads only what it uses (issue 22, item 5): each entry of package.json `exports` is imported from
 * the built dist/ in a fresh Node process, and the npm packages it loaded (seen by a `module.registerHooks` load
 * hook, CommonJS `require`s included: scripts/import-probe.mjs) are checked. `pg` loads only with
 * `deputy/distributed` or once a PostgresRunStore is made; the provider SDKs only once a backend names their
 * provider; node-llama-cpp (an optional peer) never at import.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const exportsMap = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).exports as Record<
  string,
  { default: string } | string
>;
const entries = Object.entries(exportsMap).flatMap(([key, spec]) =>
  typeof spec === "string" ? [] : [{ key, file: join(root, spec.default) }],
);
const dir = mkdtempSync(join(tmpdir(), "deputy-subpath-imports-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The npm packages that importing `file` loads, in a fresh process. */
function packagesLoadedBy(file: string): string[] {
  const out = execFileSync(process.execPath, [join(root, "scripts/import-probe.mjs"), file, "--modules"], {
    encoding: "utf8",
  });
  const { modules } = JSON.parse(out) as { modules: string[] };
  const names = modules.flatMap((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? []);
  return [...new Set(names)].sort();
}

/** A module that imports `entry` of dist/ and then runs `body` (to load what a use of it needs). */
function program(name: string, entry: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    `import * as deputy from ${JSON.stringify(pathToFileURL(join(root, entry)).href)};\n${body}\n`,
  );
  return file;
}

const providerSdks = ["@ai-sdk/anthropic", "@ai-sdk/openai", "@ai-sdk/openai-compatible", "ai"];
const postgres = /^(pg|pg-.*|postgres-.*)$/;

describe("what importing a subpath loads", () => {
  it("is built (npm test builds dist/ first)", () => {
    expect(existsSync(join(root, "dist/index.js")), "run `npx tsc -p tsconfig.build.json` first").toBe(true);
  });

  for (const { key, file } of entries) {
    it(`${key}: no provider SDK, no node-llama-cpp${key === "./distributed" ? "" : ", no pg"}`, () => {
      const loaded = packagesLoadedBy(file);
      expect(loaded.filter((p) => providerSdks.includes(p) || p === "node-llama-cpp")).toEqual([]);
      if (key === "./distributed") expect(loaded).toContain("pg");
      else expect(loaded.filter((p) => postgres.test(p))).toEqual([]);
    });
  }

  it("deputy/plan loads pg once a PostgresRunStore is made (the probe sees CommonJS requires)", () => {
    const file = program(
      "postgres.mjs",
      "dist/plan/index.js",
      `const store = new deputy.PostgresRunStore("postgres://deputy@127.0.0.1:1/deputy");\nawait store.close();`,
    );
    expect(packagesLoadedBy(file)).toContain("pg");
  });

  it("deputy/agents loads a provider SDK once a backend names its provider, and only that one", () => {
    const file = program(
      "openai.mjs",
      // resolveBackend is no public name (rooms of issue 22): the module that deputy/agents resolves with.
      "dist/agents/backend.js",
      `deputy.resolveBackend({ provider: "openai", model: "gpt-test", apiKey: "sk-test" });`,
    );
    const loaded = packagesLoadedBy(file);
    expect(loaded).toContain("@ai-sdk/openai");
    expect(loaded).not.toContain("@ai-sdk/anthropic");
  });
});
