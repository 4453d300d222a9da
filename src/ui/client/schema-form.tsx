import { show } from "./text.js";
import type { JsonSchema } from "./types.js";

/**
 * A form generated from a tool's JSON Schema (an object of properties): enums become menus, strings text
 * fields, numbers number fields, booleans checkboxes, anything else a JSON text area. It only collects values;
 * the server checks the call with the accept gate, exactly as `deputy resolve` does.
 */
export function SchemaForm({
  schema,
  values,
  onChange,
  idPrefix,
}: {
  schema: JsonSchema;
  values: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
  idPrefix: string;
}) {
  const props = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  if (props.length === 0) return <p class="muted">This tool takes no arguments.</p>;
  return (
    <div class="schema-form">
      {props.map(([name, prop]) => {
        const id = `${idPrefix}-${name}`;
        const set = (v: string) => onChange({ ...values, [name]: v });
        const value = values[name] ?? "";
        const kind = kindOf(prop);
        return (
          <div class="field" key={name}>
            <label for={id}>
              {show(name)}
              {required.has(name) ? <span class="req"> *</span> : null}
              {prop.description ? <span class="hint"> — {show(prop.description)}</span> : null}
            </label>
            {kind === "enum" ? (
              <select
                id={id}
                name={name}
                value={value}
                onChange={(e) => set((e.target as HTMLSelectElement).value)}
              >
                <option value="">{required.has(name) ? "choose…" : "(none)"}</option>
                {prop.enum!.map((option) => (
                  <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
                    {show(option, false)}
                  </option>
                ))}
              </select>
            ) : kind === "boolean" ? (
              <select
                id={id}
                name={name}
                value={value}
                onChange={(e) => set((e.target as HTMLSelectElement).value)}
              >
                <option value="">(none)</option>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            ) : kind === "json" ? (
              <textarea
                id={id}
                name={name}
                rows={3}
                value={value}
                onInput={(e) => set((e.target as HTMLTextAreaElement).value)}
              />
            ) : kind === "number" ? (
              <input
                id={id}
                name={name}
                type="number"
                value={value}
                onInput={(e) => set((e.target as HTMLInputElement).value)}
              />
            ) : (
              <input
                id={id}
                name={name}
                type="text"
                value={value}
                onInput={(e) => set((e.target as HTMLInputElement).value)}
              />
            )}
          </div>
        );
      })}
    </div>
  );
}

type Kind = "enum" | "boolean" | "number" | "string" | "json";

function kindOf(prop: JsonSchema): Kind {
  if (Array.isArray(prop.enum)) return "enum";
  const type = Array.isArray(prop.type) ? prop.type.find((t) => t !== "null") : prop.type;
  if (type === "boolean") return "boolean";
  if (type === "number" || type === "integer") return "number";
  if (type === "string") return "string";
  return "json";
}

/** Form values (text) from a call's arguments, for the fields the schema has; the other keys are returned too. */
export function toFormValues(
  schema: JsonSchema,
  args: Record<string, unknown> | undefined,
): { values: Record<string, string>; dropped: string[]; outside: string[] } {
  const values: Record<string, string> = {};
  const outside: string[] = [];
  const props = schema.properties ?? {};
  for (const [name, prop] of Object.entries(props)) {
    if (!args || !(name in args)) continue;
    const v = args[name];
    const kind = kindOf(prop);
    if (kind === "enum" && !prop.enum!.some((option) => JSON.stringify(option) === JSON.stringify(v))) {
      // A menu cannot show a value it does not offer: leave it to choose, and say what was proposed.
      outside.push(`${name} = ${JSON.stringify(v)}`);
      continue;
    }
    values[name] =
      kind === "enum"
        ? JSON.stringify(v)
        : kind === "json"
          ? JSON.stringify(v, null, 2)
          : typeof v === "string"
            ? v
            : String(v);
  }
  const dropped = Object.keys(args ?? {}).filter((k) => !(k in props));
  return { values, dropped, outside };
}

/** The call's arguments from form values; empty fields are left out. Throws on a JSON field that does not parse. */
export function fromFormValues(schema: JsonSchema, values: Record<string, string>): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const text = values[name];
    if (text === undefined || text === "") continue;
    const kind = kindOf(prop);
    if (kind === "string") args[name] = text;
    else if (kind === "number") args[name] = Number(text);
    else {
      try {
        args[name] = JSON.parse(text);
      } catch {
        throw new Error(`${name}: not valid JSON`);
      }
    }
  }
  return args;
}
