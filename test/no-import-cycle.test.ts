/**
 * The lint rule that keeps src/ free of import cycles (eslint-rules/no-import-cycle.js), run by ESLint on a small
 * project written for the test: a cycle made only of `import type` is reported (import-x/no-cycle skips it, which
 * is how issue 22 found eleven such files), a file that merely imports a member of a cycle is not, and neither
 * is a chain without a way back.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import { afterAll, describe, expect, it } from "vitest";
import { noImportCycle } from "../eslint-rules/no-import-cycle.js";

const dir = mkdtempSync(join(tmpdir(), "deputy-no-import-cycle-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const files: Record<string, string> = {
  "tsconfig.json": JSON.stringify({
    compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true },
    include: ["*.ts"],
  }),
  // unit.ts ⇄ host.ts through type-only imports: no run-time edge at all, still a cycle.
  "unit.ts": `import type { Host } from "./host.js";\nexport interface Unit { host: Host }\n`,
  "host.ts": `import type { Unit } from "./unit.js";\nexport interface Host { escalate(unit: Unit): void }\n`,
  // Imports a member of the cycle without being in it.
  "engine.ts": `import type { Unit } from "./unit.js";\nexport const run = (unit: Unit) => unit.host;\n`,
  // A chain with no way back.
  "low.ts": `export const low = 1;\n`,
  "high.ts": `import { low } from "./low.js";\nexport type { Unit } from "./unit.js";\nexport const high = low + 1;\n`,
};
for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);

describe("deputy/no-import-cycle", () => {
  it("reports every import inside a cycle, type-only ones included, with the cycle's path", async () => {
    const eslint = new ESLint({
      cwd: dir,
      overrideConfigFile: true,
      overrideConfig: [
        {
          files: ["**/*.ts"],
          languageOptions: {
            parser: tseslint.parser,
            parserOptions: { project: "./tsconfig.json", tsconfigRootDir: dir },
          },
          plugins: { deputy: { rules: { "no-import-cycle": noImportCycle } } },
          rules: { "deputy/no-import-cycle": "error" },
        },
      ],
    });
    const results = await eslint.lintFiles(["*.ts"]);
    const reported = Object.fromEntries(
      results.map((r) => [r.filePath.slice(dir.length + 1), r.messages.map((m) => m.message)]),
    );
    expect(reported["unit.ts"]).toEqual([expect.stringMatching(/unit\.ts → host\.ts → unit\.ts/)]);
    expect(reported["host.ts"]).toEqual([expect.stringMatching(/host\.ts → unit\.ts → host\.ts/)]);
    expect(reported["engine.ts"]).toEqual([]);
    expect(reported["low.ts"]).toEqual([]);
    expect(reported["high.ts"]).toEqual([]);
  });
});
