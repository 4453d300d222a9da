/**
 * The public barrels (the `index.ts` of every `package.json` subpath) list their names: no `export *` that
 * would carry one subpath's names, internals included, into another; and the plumbing deputy's own parts share
 * (store mutations, the engine context, the run lease, CLI formatting, spec parsing) is not among them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  exports: Record<string, unknown>;
};

/** Every subpath's source barrel, from its `dist/…/index.js` entry. */
const barrels = Object.entries(pkg.exports)
  .filter(([k]) => k !== "./package.json")
  .map(([k, v]): [string, string] => [
    k,
    (v as { default: string }).default.replace("./dist/", "src/").replace(/\.js$/, ".ts"),
  ]);

describe("public barrels", () => {
  it("no index.ts under src/ re-exports with `export *`", () => {
    const indexes = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
      .filter((f) => f === "index.ts" || f.endsWith("/index.ts"))
      .map((f) => join("src", f));
    expect(indexes.length).toBeGreaterThan(5);
    const starred = indexes.filter((f) => /^\s*export\s+\*/m.test(readFileSync(join(root, f), "utf8")));
    expect(starred).toEqual([]);
  });

  it("a folder under src/ has an index.ts exactly when it is a subpath (issue 37): no barrel that ships nowhere", () => {
    const indexes = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith("/index.ts"))
      .map((f) => join("src", f))
      .sort();
    // Two barrels that are not a subpath's file, each for a reason: compose/'s is what cli/, ui/, mcp/ and
    // distributed/ import (the composition root), and plan/'s is the engine's half of deputy-js/plan, which
    // compose/plan-subpath.ts re-exports beside the composed names.
    const inner = ["src/compose/index.ts", "src/plan/index.ts"];
    expect(indexes).toEqual(
      [
        ...barrels.map(([, f]) => f).filter((f) => f.endsWith("/index.ts") && f !== "src/index.ts"),
        ...inner,
      ].sort(),
    );
    expect(barrels.map(([k]) => k)).toContain("./events");
  });

  it("no subpath barrel re-exports with `export *` (deputy/plan's sits in src/compose/, not in an index.ts)", () => {
    const starred = barrels.filter(([, f]) => /^\s*export\s+\*/m.test(readFileSync(join(root, f), "utf8")));
    expect(starred).toEqual([]);
  });

  it("deputy/plan runs plans with the built-in node types, beside the bare engine (issue 37)", async () => {
    const file = barrels.find(([k]) => k === "./plan")![1];
    expect(file).toBe("src/compose/plan-subpath.ts");
    const names = Object.keys(await import(join(root, file)));
    expect(names).toEqual(
      expect.arrayContaining(["runPlan", "resumeRun", "createHost", "plan", "builtInNodeTypes", "startRun"]),
    );
  });

  it("deputy/confidence is a subpath, and deputy/delegate no longer carries deputy/distill", () => {
    expect(barrels.map(([k]) => k)).toEqual(expect.arrayContaining(["./confidence", "./distill"]));
    const delegate = readFileSync(join(root, "src/delegate/index.ts"), "utf8");
    expect(delegate).not.toMatch(/distill\//);
  });

  it("internals leave the public barrels", async () => {
    const internals = [
      "applyMutations",
      "executeWith",
      "acquireRunLease",
      "newLeaseOwner",
      "dispatchTool",
      "buildManifest",
      "compileTemplate",
      "applySelectPath",
      "redactUrl",
      "formatTraceStats",
      "writeTrace",
      "capStrings",
      "loadToolsModule",
      "didYouMean",
      "sortedJson",
      "toGrammarSchema",
      "choiceProbability",
      "normalizeBudget",
      "resolveBackend",
      "checkResult",
      "countTokens",
      "pigLatin",
      "registerDistilledSpec",
      "freePort",
      "writeGguf",
    ];
    const leaked: string[] = [];
    for (const [subpath, file] of barrels) {
      const names = Object.keys(await import(join(root, file)));
      for (const name of internals) if (names.includes(name)) leaked.push(`${subpath}: ${name}`);
    }
    expect(leaked).toEqual([]);
  });
});
