import { ExpressionError } from "../errors/expression-error.js";
import { hasOwnKey, setOwn } from "./own.js";
import { applySelectPath, type PathStep } from "./select-path.js";

/** A placeholder: its root (`artifacts`, the for_each alias, `index`, `inputs`) and the steps below it. */
export interface Placeholder {
  text: string;
  root: string;
  steps: PathStep[];
  /** For `{artifacts.KEY…}`: the key and the steps after it, split once at compile time. */
  artifact?: { key: string; rest: PathStep[] };
}

/** A compiled template string: a literal, one whole placeholder (structured value), or text with holes. */
export type CompiledTemplate =
  | { kind: "literal"; value: string }
  | { kind: "whole"; ref: Placeholder }
  | { kind: "parts"; parts: (string | Placeholder)[] };

/** Everything a template can see while rendering. */
export interface TemplateScope {
  artifacts: Record<string, unknown>;
  /** The for_each alias (`item` unless the node says otherwise) and its value. */
  alias?: string;
  item?: unknown;
  index?: number;
  /** A plan's declared inputs, when it is run like a function. */
  inputs?: Record<string, unknown>;
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_-]+|\[\d+\])*)\}/g;
const cache = new Map<string, CompiledTemplate>();

function parsePath(rest: string): PathStep[] {
  const steps: PathStep[] = [];
  for (const m of rest.matchAll(/\.([A-Za-z0-9_-]+)|\[(\d+)\]/g)) {
    steps.push(m[1] !== undefined ? { key: m[1] } : { index: Number(m[2]) });
  }
  return steps;
}

/** Compiles (and caches) a template string. Text that is no placeholder is kept as it is. */
export function compileTemplate(text: string): CompiledTemplate {
  let compiled = cache.get(text);
  if (compiled) return compiled;
  const parts: (string | Placeholder)[] = [];
  let last = 0;
  for (const m of text.matchAll(PLACEHOLDER)) {
    if (m.index > last) parts.push(text.slice(last, m.index));
    const steps = parsePath(m[2]!);
    const first = steps[0];
    const artifact =
      m[1] === "artifacts" && first && "key" in first ? { key: first.key, rest: steps.slice(1) } : undefined;
    parts.push({ text: m[0], root: m[1]!, steps, ...(artifact ? { artifact } : {}) });
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  if (parts.length === 1 && typeof parts[0] !== "string") compiled = { kind: "whole", ref: parts[0]! };
  else if (parts.every((p) => typeof p === "string")) compiled = { kind: "literal", value: text };
  else compiled = { kind: "parts", parts };
  if (cache.size > 10_000) cache.clear();
  cache.set(text, compiled);
  return compiled;
}

/** Every placeholder in a value (strings, arrays and objects, recursively). */
export function placeholdersIn(value: unknown): Placeholder[] {
  if (typeof value === "string") {
    const c = compileTemplate(value);
    return c.kind === "whole"
      ? [c.ref]
      : c.kind === "parts"
        ? c.parts.filter((p) => typeof p !== "string")
        : [];
  }
  if (Array.isArray(value)) return value.flatMap(placeholdersIn);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(placeholdersIn);
  return [];
}

/** True when a placeholder's root is one this scope knows (otherwise its text is kept literally). */
function knows(scope: TemplateScope, root: string): boolean {
  return (
    root === "artifacts" ||
    (root === scope.alias && scope.alias !== undefined) ||
    (root === "index" && scope.index !== undefined) ||
    (root === "inputs" && scope.inputs !== undefined)
  );
}

function resolve(ref: Placeholder, scope: TemplateScope): unknown {
  if (ref.root === "artifacts") {
    const artifact = ref.artifact;
    if (!artifact) {
      throw new ExpressionError(
        "TEMPLATE_INVALID",
        `${ref.text}: name an artifact, as in {artifacts.fetch_alerts}.`,
      );
    }
    if (!Object.hasOwn(scope.artifacts, artifact.key)) {
      throw new ExpressionError("TEMPLATE_MISSING", `${ref.text}: no artifact "${artifact.key}" is stored.`);
    }
    const value = scope.artifacts[artifact.key];
    return artifact.rest.length === 0
      ? value
      : applySelectPath(value, artifact.rest, `artifacts.${artifact.key}`);
  }
  if (ref.root === "index") return scope.index;
  if (ref.root === "inputs") return applySelectPath(scope.inputs, ref.steps, "inputs");
  return ref.steps.length === 0 ? scope.item : applySelectPath(scope.item, ref.steps, ref.root);
}

function stringify(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** Renders one template string: a whole placeholder yields the structured value, otherwise text. */
export function renderString(text: string, scope: TemplateScope): unknown {
  return renderCompiled(compileTemplate(text), scope);
}

function renderCompiled(c: CompiledTemplate, scope: TemplateScope): unknown {
  if (c.kind === "literal") return c.value;
  if (c.kind === "whole") return knows(scope, c.ref.root) ? resolve(c.ref, scope) : c.ref.text;
  let out = "";
  for (const p of c.parts)
    out += typeof p === "string" ? p : knows(scope, p.root) ? stringify(resolve(p, scope)) : p.text;
  return out;
}

/**
 * The renderer of one whole placeholder. The common for_each argument (`{item.i}`: the alias and one key) gets a
 * renderer of its own that does only that, so the generic `resolve` and `applySelectPath` stay off the per-item
 * path (less code for V8 to optimise during a large run); every other placeholder is resolved generically.
 */
function compileWhole(ref: Placeholder): ValueRenderer {
  const step = ref.steps[0];
  const { root, text } = ref;
  if (ref.steps.length === 1 && step && "key" in step && !FIXED_ROOTS.has(root)) {
    const { key } = step;
    // As `knows` and `resolve` decide for a root that is not artifacts, index or inputs: the alias's own key, or
    // (not an own key) the select path's SELECT_MISSING error; not the alias: the text as it is.
    return (scope) => {
      if (root !== scope.alias || scope.alias === undefined) return text;
      const item = scope.item;
      return hasOwnKey(item, key) ? item[key] : applySelectPath(item, ref.steps, root);
    };
  }
  return (scope) => (knows(scope, root) ? resolve(ref, scope) : text);
}

/** Roots `resolve` reads from somewhere other than the for_each alias. */
const FIXED_ROOTS: ReadonlySet<string> = new Set(["artifacts", "index", "inputs"]);

/**
 * The renderer of text with placeholders. Text with one `{index}` in it (a for_each `store_as` such as
 * `r{index}`) gets a renderer of its own (as {@link compileWhole}); any other text is rendered generically.
 */
function compileParts(parts: (string | Placeholder)[]): ValueRenderer {
  const holes = parts.filter((p): p is Placeholder => typeof p !== "string");
  const hole = holes[0];
  if (holes.length === 1 && hole!.root === "index" && hole!.steps.length === 0) {
    const at = parts.indexOf(hole!);
    const before = (parts.slice(0, at) as string[]).join("");
    const after = (parts.slice(at + 1) as string[]).join("");
    const literal = before + hole!.text + after;
    // `knows` for the root `index`: the scope has an index, or `index` is its alias (then resolve reads the index).
    return (scope) =>
      scope.index !== undefined || scope.alias === "index"
        ? before + stringify(scope.index) + after
        : literal;
  }
  const c: CompiledTemplate = { kind: "parts", parts };
  return (scope) => renderCompiled(c, scope);
}

/** A value compiled for rendering: call it with a scope. */
export type ValueRenderer = (scope: TemplateScope) => unknown;

const renderers = new WeakMap<object, ValueRenderer>();
/**
 * Renderers by text (strings) and by JSON text (JSON objects and arrays), so the same plan run again gets the same
 * renderer functions: code optimised for them in one run stays valid in the next.
 */
const byText = new Map<string, ValueRenderer>();
/** Longest JSON text kept as a key in `byText` (an argument object with a large literal is compiled per object). */
const MAX_KEYED_TEXT = 4096;

function remember(text: string, renderer: ValueRenderer): ValueRenderer {
  if (byText.size > 10_000) byText.clear();
  byText.set(text, renderer);
  return renderer;
}

/**
 * Compiles a value once (cached per object, and per text, so a node's `args` under for_each is walked once, not
 * per item): strings become their compiled templates, objects and arrays renderers that build fresh copies.
 */
export function compileValue(value: unknown): ValueRenderer {
  if (typeof value === "string") {
    const known = byText.get(value);
    if (known) return known;
    const c = compileTemplate(value);
    if (c.kind === "literal") return remember(value, () => c.value);
    if (c.kind === "parts") return remember(value, compileParts(c.parts));
    return remember(value, compileWhole(c.ref));
  }
  if (typeof value !== "object" || value === null) return () => value;
  const cached = renderers.get(value);
  if (cached) return cached;
  // JSON data (what plans hold) is keyed by its text, prefixed so it cannot meet a template string's key; a
  // value its JSON text does not show faithfully, or a large one, is compiled for itself.
  const json = faithfulJson(value);
  const text = json === undefined || json.length > MAX_KEYED_TEXT ? undefined : `\0${json}`;
  const known = text === undefined ? undefined : byText.get(text);
  if (known) {
    renderers.set(value, known);
    return known;
  }
  let renderer: ValueRenderer;
  if (Array.isArray(value)) {
    const items = value.map(compileValue);
    renderer = (scope) => items.map((render) => render(scope));
  } else {
    const keys = Object.keys(value);
    const renders = keys.map((k) => compileValue((value as Record<string, unknown>)[k]));
    // A key named __proto__ (plans and tool outputs are JSON) is data, not the prototype: such an object is
    // built with setOwn; any other is assigned directly (this runs per for_each item).
    renderer = keys.includes("__proto__")
      ? (scope) => {
          const out: Record<string, unknown> = {};
          for (let i = 0; i < keys.length; i++) setOwn(out, keys[i]!, renders[i]!(scope));
          return out;
        }
      : (scope) => {
          const out: Record<string, unknown> = {};
          for (let i = 0; i < keys.length; i++) out[keys[i]!] = renders[i]!(scope);
          return out;
        };
  }
  renderers.set(value, renderer);
  return text === undefined ? renderer : remember(text, renderer);
}

/**
 * The JSON text of a value when it shows the value exactly (plain objects and arrays, strings, finite numbers,
 * booleans, null), else `undefined`: `{ a: undefined }` and `{}`, or a `Date` and its ISO string, share a text but
 * not a rendering.
 */
function faithfulJson(value: unknown): string | undefined {
  let faithful = true;
  let json: string;
  try {
    json = JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
      if (!faithful) return undefined;
      const raw = this[key];
      if (raw !== v)
        faithful = false; // a toJSON replaced it
      else if (typeof v === "number") faithful = Number.isFinite(v);
      else if (Array.isArray(v)) faithful = true;
      else if (typeof v === "object" && v !== null) {
        const proto: unknown = Object.getPrototypeOf(v);
        faithful = proto === Object.prototype || proto === null;
      } else if (v !== null && typeof v !== "string" && typeof v !== "boolean") faithful = false;
      return v;
    });
  } catch {
    return undefined; // a cycle, a BigInt
  }
  return faithful ? json : undefined;
}

/** Renders every string inside a value (objects and arrays are copied, never mutated). */
export function renderValue(value: unknown, scope: TemplateScope): unknown {
  return compileValue(value)(scope);
}
