/**
 * `deputy/no-import-cycle`: no import cycle among the project's files, type-only imports included.
 *
 * `import-x/no-cycle` skips `import type` (it has no run-time effect), and that is how nine files in agents/
 * and two in plan/ came to form cycles that no lint saw: types that refer to each other across files tie the
 * files together just the same, and the next value import along such a cycle is a load-order bug. This rule
 * reads the TypeScript program that typed linting already built (`parserServices.program`), makes the import
 * graph of every project file once per program (static imports and re-exports, `import type` and
 * `export type` included, `import x = require()`, `import("…")` types and dynamic `import()`), finds its
 * strongly connected components (Tarjan) and reports each import whose target lies in its file's component,
 * with one path of the cycle. One graph per lint run, not a traversal per import.
 */
import ts from "typescript";

/** @type {WeakMap<ts.Program, { resolved: Map<string, Map<string, string>>; component: Map<string, number>; edges: Map<string, Set<string>> }>} */
const graphs = new WeakMap();

function ownFile(fileName) {
  return !fileName.includes("/node_modules/") && !fileName.endsWith(".d.ts");
}

/** The module specifiers a file names, with what each resolves to (project files only). */
function importsOf(sourceFile, program) {
  const specifiers = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      if (ts.isStringLiteral(e)) specifiers.push(e.text);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) specifiers.push(arg.literal.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [first] = node.arguments;
      if (first && ts.isStringLiteralLike(first)) specifiers.push(first.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  const options = program.getCompilerOptions();
  const resolved = new Map();
  for (const specifier of specifiers) {
    if (!specifier.startsWith(".")) continue; // packages cannot import the project back
    const target = ts.resolveModuleName(specifier, sourceFile.fileName, options, ts.sys).resolvedModule;
    if (target && ownFile(target.resolvedFileName)) resolved.set(specifier, target.resolvedFileName);
  }
  return resolved;
}

/** Tarjan's strongly connected components, iteratively (no recursion limit on long import chains). */
function components(edges) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const component = new Map();
  let next = 0;
  let count = 0;
  for (const root of edges.keys()) {
    if (index.has(root)) continue;
    const work = [{ file: root, targets: [...edges.get(root)], at: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame.at < frame.targets.length) {
        const to = frame.targets[frame.at++];
        if (!edges.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ file: to, targets: [...edges.get(to)], at: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.file, Math.min(low.get(frame.file), index.get(to)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].file;
        low.set(parent, Math.min(low.get(parent), low.get(frame.file)));
      }
      if (low.get(frame.file) === index.get(frame.file)) {
        const members = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          members.push(member);
        } while (member !== frame.file);
        const id = members.length > 1 ? count++ : -1; // a file alone is no cycle
        for (const m of members) component.set(m, id);
      }
    }
  }
  return component;
}

function graphOf(program) {
  let graph = graphs.get(program);
  if (graph) return graph;
  const resolved = new Map();
  const edges = new Map();
  for (const sourceFile of program.getSourceFiles()) {
    if (!ownFile(sourceFile.fileName)) continue;
    const imports = importsOf(sourceFile, program);
    resolved.set(sourceFile.fileName, imports);
    edges.set(sourceFile.fileName, new Set(imports.values()));
  }
  graph = { resolved, edges, component: components(edges) };
  graphs.set(program, graph);
  return graph;
}

/** One shortest path from `from` back to `to` inside their component (breadth first). */
function pathBack(graph, from, to) {
  const id = graph.component.get(to);
  const previous = new Map([[from, undefined]]);
  const queue = [from];
  while (queue.length > 0) {
    const file = queue.shift();
    if (file === to) break;
    for (const next of graph.edges.get(file) ?? []) {
      if (graph.component.get(next) !== id || previous.has(next)) continue;
      previous.set(next, file);
      queue.push(next);
    }
  }
  const path = [];
  for (let file = to; file !== undefined; file = previous.get(file)) path.unshift(file);
  return path;
}

/** @type {import("eslint").Rule.RuleModule} */
export const noImportCycle = {
  meta: {
    type: "problem",
    docs: { description: "Forbid import cycles among project files, type-only imports included." },
    schema: [],
    messages: {
      cycle: "Import cycle (type-only imports count): {{path}}. Move the shared types below both files.",
    },
  },
  create(context) {
    const program = context.sourceCode.parserServices?.program;
    if (!program) {
      throw new TypeError("deputy/no-import-cycle needs typed linting (parserOptions.projectService)");
    }
    const graph = graphOf(program);
    const file = context.physicalFilename;
    const id = graph.component.get(file);
    if (id === undefined || id === -1) return {};
    const root = context.cwd;
    const short = (f) => (f.startsWith(root) ? f.slice(root.length + 1) : f);
    const check = (source) => {
      if (!source || typeof source.value !== "string") return;
      const target = graph.resolved.get(file)?.get(source.value);
      if (target === undefined || graph.component.get(target) !== id) return;
      const path = [file, ...pathBack(graph, target, file)].map(short).join(" → ");
      context.report({ node: source, messageId: "cycle", data: { path } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      TSImportEqualsDeclaration: (node) => check(node.moduleReference.expression),
      TSImportType: (node) => check(node.argument?.literal ?? node.source),
    };
  },
};
