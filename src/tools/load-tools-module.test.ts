import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// In a plain Node process, as the CLI runs: under vitest, Vite would transform the .ts module itself.
const LOADER = fileURLToPath(new URL("../../dist/tools/load-tools-module.js", import.meta.url));

function project(files: Record<string, string>): string {
  const at = mkdtempSync(join(tmpdir(), "deputy-tools-ts-"));
  writeFileSync(join(at, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(join(at, "helper.ts"), `export const helper = (s: string): string => s.toUpperCase();`);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(at, name), text);
  return at;
}

/** The tool names a module exports, and the URL it was evaluated at (tsx adds a `tsx-namespace` query). */
async function load(path: string): Promise<{ names: string[]; where: string }> {
  const script = `
    const { loadToolsModule } = await import(${JSON.stringify(LOADER)});
    const mod = await loadToolsModule(${JSON.stringify(path)});
    console.log(JSON.stringify({ names: mod.tools.map((t) => t.name), where: String(mod.exports.where) }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
  return JSON.parse(stdout) as { names: string[]; where: string };
}

const TOOL = `{ name: "shout", description: "upper case", input: { type: "object" }, run: (a: { v: string }): string => helper(a.v) }`;

describe("TypeScript tools modules", () => {
  it("load with Node's own type stripping, not tsx", async () => {
    const at = project({
      "tools.ts": `import { helper } from "./helper.ts";\nexport const where = import.meta.url;\nexport const tools = [${TOOL}];`,
    });
    const mod = await load(join(at, "tools.ts"));
    expect(mod.names).toEqual(["shout"]);
    expect(mod.where).not.toMatch(/tsx/);
  });

  it("go to tsx for what stripping cannot load: an enum, a .js specifier meaning a .ts file", async () => {
    const at = project({
      "enum.ts": `import { helper } from "./helper.ts";\nenum Loud { Yes }\nexport const where = import.meta.url + Loud.Yes;\nexport const tools = [${TOOL}];`,
      "jsext.ts": `import { helper } from "./helper.js";\nexport const where = import.meta.url;\nexport const tools = [${TOOL}];`,
    });
    for (const file of ["enum.ts", "jsext.ts"]) {
      const mod = await load(join(at, file));
      expect(mod.names).toEqual(["shout"]);
      expect(mod.where).toMatch(/tsx/);
    }
  });
});

describe("a tools module that is not there", () => {
  it("is one error naming it; a URL is told it means an MCP server, written mcp+http(s)://", async () => {
    const { loadToolsModule } = await import("./load-tools-module.js");
    const missing = (path: string) =>
      loadToolsModule(path).then(
        () => ({ code: "LOADED", message: "" }),
        (e: unknown) => e as Error & { code: string },
      );
    const file = await missing("no/such/tools.mjs");
    expect(file.code).toBe("TOOLS_MODULE_NOT_FOUND");
    expect(file.message).toBe("Tools module not found: no/such/tools.mjs");
    const url = await missing("http://127.0.0.1:8080/mcp");
    expect(url.code).toBe("TOOLS_MODULE_NOT_FOUND");
    expect(url.message).toContain("--tools mcp+http://127.0.0.1:8080/mcp");
    expect((await missing("HTTPS://example.test/mcp")).message).toContain("mcp+https://…");
  });
});
