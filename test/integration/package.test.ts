/**
 * The published package, as a user gets it: `npm pack` of the built dist/, unpacked into a fresh project, where
 * every subpath of `exports` is imported as ESM and type-checked by tsc (strict, NodeNext, skipLibCheck off).
 *
 * The tarball is unpacked rather than `npm install`ed: an offline install needs the registry's metadata for
 * every dependency, which `npm ci` does not cache; the dependencies (and the peers an app installs: `ai`,
 * `zod`) are linked from this repository's node_modules instead (resolved like an install would: from the
 * unpacked package's own folder upwards). The one test that installs from the registry is the peer range's:
 * the tarball with the oldest and the newest `ai` and `zod` the ranges allow (docs/library.md).
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
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};
/** The peers an app must have (npm installs them with deputy-js): linked like the dependencies. */
const requiredPeers = Object.keys(pkg.peerDependencies).filter(
  (name) => !pkg.peerDependenciesMeta?.[name]?.optional,
);
const subpaths = Object.keys(pkg.exports)
  .filter((k) => k !== "./package.json")
  .map((k) => (k === "." ? pkg.name : `${pkg.name}/${k.slice(2)}`));
const dir = mkdtempSync(join(tmpdir(), "deputy-package-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sh(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

let packedOnce: { filename: string; files: { path: string }[] }[] | undefined;
/** `npm pack` of the built package into `dir`, once. */
function pack() {
  return (packedOnce ??= JSON.parse(
    sh("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], root),
  ) as { filename: string; files: { path: string }[] }[]);
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
    const packed = pack();
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
    for (const dep of [...Object.keys(pkg.dependencies), ...requiredPeers]) link(app, dep);
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
    // An app's own `ai` and `zod` are the ones deputy uses (a second copy's types do not fit): peers with a
    // range, installed with deputy-js; the hosted providers only for those who name them. None exact-pinned.
    for (const peer of ["ai", "zod"]) {
      expect(manifest.dependencies).not.toHaveProperty(peer);
      expect(peers[peer]).toMatch(/^\^\d/);
      expect(optional?.[peer]?.optional).not.toBe(true);
    }
    for (const provider of ["@ai-sdk/openai", "@ai-sdk/anthropic"]) {
      expect(manifest.dependencies).not.toHaveProperty(provider);
      expect(optional?.[provider]?.optional).toBe(true);
    }
    for (const [name, range] of Object.entries(manifest.dependencies))
      if (/^(ai|zod|@ai-sdk\/.*)$/.test(name)) expect(range, name).toMatch(/^\^\d/);
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

  it.each(["oldest", "newest"] as const)(
    "installs from the registry beside the %s `ai` and `zod` its peer ranges allow: one copy of each, and tsc and node pass a program on fromAiSdkTools and toAiSdkTools",
    (which) => {
      const tarball = join(dir, pack()[0]!.filename);
      // The floor of a `^x.y.z` range, or the range itself (npm installs the newest version it allows).
      const version = (name: string) => {
        const range = pkg.peerDependencies[name]!;
        return which === "oldest" ? range.replace(/^\^/, "") : range;
      };
      const app = join(dir, `peers-${which}`);
      mkdirSync(app, { recursive: true });
      writeFileSync(
        join(app, "package.json"),
        JSON.stringify({ name: "app", private: true, type: "module" }),
      );
      sh(
        "npm",
        [
          "install",
          "--no-audit",
          "--no-fund",
          "--ignore-scripts",
          tarball,
          `ai@${version("ai")}`,
          `zod@${version("zod")}`,
          // A model from the app's own provider SDK, of the same age, is a backend as it is.
          `@ai-sdk/openai@${version("@ai-sdk/openai")}`,
          `@types/node@${pkg.devDependencies["@types/node"]}`,
          // @ai-sdk/provider's declarations import it; checked here with skipLibCheck off.
          "@types/json-schema",
        ],
        app,
      );
      // One copy: deputy's types are the app's (a nested `ai` is the TS2375 `[schemaSymbol]` error).
      for (const peer of ["ai", "zod"])
        expect(existsSync(join(app, "node_modules", pkg.name, "node_modules", peer)), peer).toBe(false);
      writeFileSync(join(app, "main.ts"), PEER_PROGRAM.replaceAll("deputy-js", pkg.name));
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
            types: [],
          },
          files: ["main.ts"],
        }),
      );
      let diagnostics = "";
      try {
        sh(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "."], app);
      } catch (error) {
        diagnostics = String((error as { stdout?: string }).stdout ?? error);
      }
      expect(diagnostics).toBe("");
      expect(JSON.parse(sh(process.execPath, ["main.ts"], app))).toEqual({
        status: "completed",
        weather: { city: "Oslo", celsius: 21 },
        echoed: { text: "hi" },
      });
    },
    300_000,
  );
});

/** What an app on the AI SDK writes: its tools into a plan, deputy's tools into the AI SDK, its model as a backend. */
const PEER_PROGRAM = `import { createOpenAI } from "@ai-sdk/openai";
import { tool } from "ai";
import { z } from "zod";
import { defineAgent, defineTool, runPlan } from "deputy-js";
import { fromAiSdkTools, toAiSdkTools } from "deputy-js/tools";

const weather = tool({
  description: "The weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, celsius: 21 }),
});
const echo = defineTool({
  name: "echo",
  description: "Says it back",
  input: z.object({ text: z.string() }),
  run: ({ text }) => ({ text }),
});
const set = toAiSdkTools([echo]);
export const agent = defineAgent({
  name: "Helper",
  backend: createOpenAI({ apiKey: "not-used" })("gpt-4o-mini"),
  actions: { help: ({ q }: { q: string }) => q },
});
const manifest = await runPlan(
  { name: "weather", nodes: [{ id: "w", tool: "weather", args: { city: "Oslo" }, store_as: "w" }] },
  { tools: fromAiSdkTools({ weather }, { delegateSafe: ["weather"] }) },
);
const echoed = await set.echo!.execute!({ text: "hi" }, { toolCallId: "1", messages: [] } as never);
console.log(JSON.stringify({ status: manifest.status, weather: manifest.artifacts.w, echoed }));
`;
