/**
 * One composition root (issue 37, item 1): src/compose/ wires the parts; the package's root entry (src/index.ts)
 * only re-exports, so nothing under src/ imports it — tests included, they import what they use from where it
 * lives; only the root's own tests (src/*.test.ts, beside it) load it — and the console (ui/) composes through compose/, never through the CLI's code. ESLint's zones say the
 * same for source files; this test reads the real tree, tests too.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const src = join(root, "src");
const files = readdirSync(src, { recursive: true, encoding: "utf8" })
  .filter((f) => /\.tsx?$/.test(f))
  .map((f) => join(src, f));

/** Every relative module a file imports or re-exports, resolved to a path under the repository. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map(
    (m) => m[1]!,
  );
  return specifiers.map((s) => relative(root, resolve(dirname(file), s)));
}

describe("the composition root", () => {
  it("no file under src/ but the root's own tests imports the package's root entry", () => {
    const offenders = files
      .filter((f) => !(dirname(f) === src && /\.test\.ts$/.test(f)))
      .flatMap((f) => (importsOf(f).includes("src/index.js") ? [relative(root, f)] : []));
    expect(files.length).toBeGreaterThan(100);
    expect(offenders).toEqual([]);
  });

  it("the root entry only re-exports", () => {
    const text = readFileSync(join(src, "index.ts"), "utf8").replace(/\/\*\*[\s\S]*?\*\//g, "");
    const statements = text
      .split(/;\s*\n/)
      .map((s) => s.replace(/^\s*\/\/.*$/gm, "").trim())
      .filter(Boolean);
    expect(statements.filter((s) => !/^export (type )?\{[\s\S]*\} from "\.\/[^"]+"$/.test(s))).toEqual([]);
  });

  it("ui/ imports nothing from cli/ (its tests may drive the CLI)", () => {
    const offenders = files
      .filter((f) => f.startsWith(join(src, "ui")) && !/\.test\.tsx?$/.test(f))
      .flatMap((f) =>
        importsOf(f)
          .filter((i) => i.startsWith("src/cli/"))
          .map((i) => `${relative(root, f)} → ${i}`),
      );
    expect(offenders).toEqual([]);
  });

  it("no declaration merging: the host's whole shape is DeputyHost, in compose/host.ts", () => {
    const merging = files.filter((f) => /^\s*declare module\b/m.test(readFileSync(f, "utf8")));
    expect(merging.map((f) => relative(root, f))).toEqual([]);
    expect(readFileSync(join(src, "compose/host.ts"), "utf8")).toMatch(
      /export type DeputyHost = ExecutionHost & DelegateCapabilities & AgentCapabilities;/,
    );
  });
});
