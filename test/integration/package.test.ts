/**
 * The published package, as a user gets it: `npm pack` of the built dist/, unpacked into a fresh project, where
 * every subpath of `exports` is imported as ESM and type-checked by tsc (strict, NodeNext, skipLibCheck off).
 *
 * The tarball is unpacked rather than `npm install`ed: an offline install needs the registry's metadata for
 * every dependency, which `npm ci` does not cache; the dependencies are linked from this repository's
 * node_modules instead (resolved like an install would: from the unpacked package's own folder upwards).
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  version: string;
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
};
const subpaths = Object.keys(pkg.exports)
  .filter((k) => k !== "./package.json")
  .map((k) => (k === "." ? pkg.name : `${pkg.name}/${k.slice(2)}`));
const dir = mkdtempSync(join(tmpdir(), "deputy-package-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sh(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function link(app: string, name: string): void {
  const target = join(root, "node_modules", name);
  if (!existsSync(target)) return;
  mkdirSync(dirname(join(app, "node_modules", name)), { recursive: true });
  symlinkSync(target, join(app, "node_modules", name), "dir");
}

describe("the packed package", () => {
  it("packs the built entries only, and every subpath imports as ESM and type-checks in a fresh project", () => {
    expect(existsSync(join(root, "dist/index.js")), "run `npm run build` first (npm test does)").toBe(true);
    const packed = JSON.parse(
      sh("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], root),
    ) as { filename: string; files: { path: string }[] }[];
    const files = packed[0]!.files.map((f) => f.path);
    expect(files.filter((f) => /\.test\.|\.fixture\.|^src\/|^test\//.test(f))).toEqual([]);
    for (const key of Object.keys(pkg.exports).filter((k) => k !== "./package.json")) {
      const entry = pkg.exports[key] as { types: string; default: string };
      expect(files).toContain(entry.default.slice(2));
      expect(files).toContain(entry.types.slice(2));
    }

    const app = join(dir, "app");
    mkdirSync(join(app, "node_modules", pkg.name), { recursive: true });
    sh(
      "tar",
      [
        "xzf",
        join(dir, packed[0]!.filename),
        "-C",
        join(app, "node_modules", pkg.name),
        "--strip-components=1",
      ],
      dir,
    );
    for (const dep of Object.keys(pkg.dependencies)) link(app, dep);
    link(app, "@types/node");
    writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));

    writeFileSync(
      join(app, "imports.mjs"),
      subpaths
        .map((s, i) => `import * as m${i} from "${s}";\nconsole.log("${s}", Object.keys(m${i}).length);`)
        .join("\n"),
    );
    const out = sh(process.execPath, ["imports.mjs"], app);
    for (const s of subpaths) expect(out).toMatch(new RegExp(`^${s} [1-9]\\d*$`, "m"));

    writeFileSync(
      join(app, "types.ts"),
      [
        ...subpaths.map((s, i) => `import type * as T${i} from "${s}";`),
        `import { runPlan, PlanValidationError, type RunOptions } from "deputy";`,
        `import { RunError, type RunErrorCode } from "deputy/errors";`,
        `const code: RunErrorCode = "RUN_NOT_FOUND";`,
        `export const used = [runPlan, PlanValidationError, RunError, code];`,
        `export type Used = [RunOptions, ${subpaths.map((_, i) => `keyof typeof T${i}`).join(", ")}];`,
      ].join("\n"),
    );
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          target: "es2023",
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
        },
        files: ["types.ts"],
      }),
    );
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    let diagnostics = "";
    try {
      sh(process.execPath, [tsc, "-p", "."], app);
    } catch (error) {
      diagnostics = String((error as { stdout?: string }).stdout ?? error);
    }
    expect(diagnostics).toBe("");
  }, 300_000);
});
