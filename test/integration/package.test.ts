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
import ts from "typescript";
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
    // No source maps: they would point at a src/ that is not shipped.
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
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
        `import { runPlan, PlanValidationError, type RunOptions } from "${pkg.name}";`,
        `import { RunError, type RunErrorCode } from "${pkg.name}/errors";`,
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
          // What `tsc --init` writes (TypeScript 5.9): no global types unless named. deputy's own
          // declarations reference Node's types, so an app need not name them (with @types/node installed).
          types: [],
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

  it("is published under a name of its own, for the Node its dependencies need, and runs nothing on install", () => {
    const manifest = pkg as typeof pkg & {
      bin: Record<string, string>;
      engines: { node: string };
      scripts: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    // `deputy` on the npm registry is an unrelated package: `npm i deputy` would install someone else's code.
    expect(manifest.name).not.toBe("deputy");
    expect(Object.keys(manifest.bin)).toEqual(["deputy"]);
    // Install-time scripts run in every user's install; the build runs before packing instead.
    expect(Object.keys(manifest.scripts).filter((k) => /^(pre|post)?(install|prepare)$/.test(k))).toEqual([]);
    expect(manifest.scripts.prepack).toMatch(/build/);
    for (const dev of ["tsx", "@types/node", "typescript", "vitest"])
      expect(manifest.dependencies).not.toHaveProperty(dev);
    // Its declarations use Node's types: a peer, so npm and pnpm install it for a TypeScript app.
    const peers = (pkg as unknown as { peerDependencies: Record<string, string> }).peerDependencies;
    const optional = (pkg as unknown as { peerDependenciesMeta?: Record<string, { optional?: boolean }> })
      .peerDependenciesMeta;
    expect(peers["@types/node"]).toBeDefined();
    expect(optional?.["@types/node"]?.optional).not.toBe(true);
    // engines is at least what every runtime dependency declares (graphile-worker 0.18: >= 22.18).
    const floor = (range: string) =>
      range
        .match(/>=\s*(\d+)\.(\d+)/)!
        .slice(1)
        .map(Number);
    const [major, minor] = floor(manifest.engines.node);
    for (const dep of Object.keys(manifest.dependencies)) {
      const depPkg = JSON.parse(readFileSync(join(root, "node_modules", dep, "package.json"), "utf8")) as {
        engines?: { node?: string };
      };
      const need = depPkg.engines?.node?.match(/>=\s*(\d+)\.(\d+)/);
      if (!need) continue;
      const [m, n] = need.slice(1).map(Number) as [number, number];
      expect(major! > m || (major === m && minor! >= n), `${dep} needs node ${depPkg.engines!.node}`).toBe(
        true,
      );
    }
  });

  it("loads no provider SDK for deputy/plan (the engine knows no node type)", () => {
    const script = `
      import { registerHooks } from "node:module";
      const seen = new Set();
      registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); seen.add(r.url); return r; } });
      await import(${JSON.stringify(join(root, "dist/plan/index.js"))});
      console.log(JSON.stringify([...seen]));`;
    const urls = JSON.parse(sh(process.execPath, ["--input-type=module", "-e", script], root)) as string[];
    expect(urls.some((u) => u.includes("/dist/plan/"))).toBe(true);
    expect(urls.filter((u) => /node_modules\/(ai|@ai-sdk|node-llama-cpp)\//.test(u))).toEqual([]);
    expect(urls.filter((u) => /\/dist\/(delegate|agents|traces|eval)\//.test(u))).toEqual([]);
  });

  it("loads only its own room and errors/ for deputy/confidence (no model, store, schema or provider SDK)", () => {
    const script = `
      import { registerHooks } from "node:module";
      const seen = new Set();
      registerHooks({ resolve(spec, ctx, next) { const r = next(spec, ctx); seen.add(r.url); return r; } });
      await import(${JSON.stringify(join(root, "dist/confidence/index.js"))});
      console.log(JSON.stringify([...seen]));`;
    const urls = JSON.parse(sh(process.execPath, ["--input-type=module", "-e", script], root)) as string[];
    const files = urls.filter((u) => u.startsWith("file:"));
    expect(files.some((u) => u.includes("/dist/confidence/"))).toBe(true);
    expect(files.filter((u) => !/\/dist\/(confidence|errors)\//.test(u))).toEqual([]);
  });

  it("gives a name one meaning across subpaths: a name two subpaths export is the same declaration", () => {
    const entries = Object.entries(pkg.exports)
      .filter(([k]) => k !== "./package.json")
      .map(([k, v]) => [k, join(root, (v as { types: string }).types)] as const);
    const program = ts.createProgram(
      entries.map(([, f]) => f),
      { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, noEmit: true },
    );
    const checker = program.getTypeChecker();
    const meanings = new Map<string, Map<string, string[]>>(); // name -> declaration -> subpaths
    for (const [subpath, file] of entries) {
      const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
      for (const exported of checker.getExportsOfModule(module)) {
        const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
        const decl = symbol.declarations?.[0];
        const where = decl ? `${decl.getSourceFile().fileName}:${decl.pos}` : symbol.name;
        const byDecl = meanings.get(exported.name) ?? new Map<string, string[]>();
        meanings.set(exported.name, byDecl.set(where, [...(byDecl.get(where) ?? []), subpath]));
      }
    }
    const shared = [...meanings].filter(([, byDecl]) => [...byDecl.values()].flat().length > 1);
    expect(shared.length).toBeGreaterThan(10); // re-exports (the root entry's everyday names) are shared
    const twoMeanings = shared
      .filter(([, byDecl]) => byDecl.size > 1)
      .map(([name, byDecl]) => `${name}: ${[...byDecl.values()].map((s) => s.join(", ")).join(" vs ")}`);
    expect(twoMeanings).toEqual([]);
  });
});
