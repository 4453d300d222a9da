import type { JsonSchema } from "../schema/json-schema.js";
import { validateValue } from "../schema/validator.js";
import { canonicalJson } from "../runtime/canonical-json.js";
import type { ToolSpec } from "../delegate/protocol.js";
import type { DistilledModelData } from "./model-file.js";

const PROSE = new Set(["description", "title", "examples", "$comment", "default"]);

/** A schema without its prose (descriptions, titles, examples, defaults), as sorted JSON: what a call must satisfy. */
export function schemaShape(schema: unknown): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (typeof v !== "object" || v === null) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (!PROSE.has(k)) out[k] = strip(x);
    return out;
  };
  return canonicalJson(strip(schema));
}

function props(schema: JsonSchema): Record<string, JsonSchema> {
  const p = schema.properties;
  return typeof p === "object" && p !== null ? (p as Record<string, JsonSchema>) : {};
}

/**
 * Why a node's candidate tools cannot be served by a model, or `undefined` when they can. A tool is compatible
 * when the model knows it and every call the model can make still fits it: each argument it fills is still
 * declared with the same constraints (for values it picks from a fixed set, each value still validates), and the
 * tool requires no argument the model never learned to fill. Descriptions may change freely; a new optional
 * argument is fine. An unknown tool is refused too: the model could never choose it, so its confidence over the
 * node's choices would be wrong.
 */
export function toolIncompatibility(
  model: Pick<DistilledModelData, "tools" | "arguments">,
  offered: readonly ToolSpec[],
  classValues: (tool: string, argument: string) => readonly unknown[] | undefined,
): string | undefined {
  const learned = new Map(model.tools.map((t) => [t.name, t]));
  for (const tool of offered) {
    const was = learned.get(tool.name);
    if (!was)
      return `tool "${tool.name}" is not one the model was trained on (it knows ${[...learned.keys()].map((n) => `"${n}"`).join(", ") || "none"}); retrain it on traces of this node with \`deputy distill\``;
    if (schemaShape(was.parameters) === schemaShape(tool.parameters)) continue;
    const heads = model.arguments[tool.name] ?? {};
    const now = props(tool.parameters);
    const before = props(was.parameters);
    for (const arg of Object.keys(heads)) {
      const current = now[arg];
      if (!current)
        return `tool "${tool.name}" no longer declares argument "${arg}", which the model fills; retrain it`;
      if (schemaShape(current) === schemaShape(before[arg])) continue;
      const values = classValues(tool.name, arg);
      const standalone = !JSON.stringify(current).includes("$ref");
      const bad = values && standalone ? values.find((v) => !validateValue(current, v).ok) : undefined;
      if (!values || !standalone || bad !== undefined)
        return `tool "${tool.name}" changed argument "${arg}" since the model was trained${bad !== undefined ? ` (the model may propose ${JSON.stringify(bad)}, which it no longer accepts)` : ""}; retrain it`;
    }
    const required = Array.isArray(tool.parameters.required) ? (tool.parameters.required as string[]) : [];
    const missing = required.filter((r) => !Object.hasOwn(heads, r));
    if (missing.length)
      return `tool "${tool.name}" now requires ${missing.map((m) => `"${m}"`).join(", ")}, which the model never learned to fill; retrain it`;
  }
  return undefined;
}
