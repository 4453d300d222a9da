import { useState } from "preact/hooks";
import { api } from "./api.js";
import { fromFormValues, SchemaForm, toFormValues } from "./schema-form.js";
import { show } from "./text.js";
import type { InboxEntry } from "./types.js";

type Mode = "accept" | "correct" | "value" | "skip";

/** How a person decides one escalation: accept the proposal, correct it, give a value, or skip. */
export function DecisionForm({ entry, by, onDone }: { entry: InboxEntry; by: string; onDone: () => void }) {
  const proposal = entry.proposal;
  const proposedTool = entry.tools.find((t) => t.name === proposal?.name);
  const [mode, setMode] = useState<Mode>(proposedTool ? "correct" : "value");
  const [toolName, setToolName] = useState(proposedTool?.name ?? entry.tools[0]?.name ?? "");
  const tool = entry.tools.find((t) => t.name === toolName);
  const initial = (name: string) =>
    toFormValues(
      entry.tools.find((t) => t.name === name)?.parameters ?? {},
      name === proposal?.name ? proposal?.arguments : undefined,
    );
  const [form, setForm] = useState(() => initial(toolName));
  const [valueText, setValueText] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const key = `${entry.runId}-${entry.nodeId}-${entry.item ?? "n"}`;

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    if (!by.trim()) return setError("Enter your name first: decisions are recorded with who made them.");
    let decision: Record<string, unknown>;
    try {
      if (mode === "accept")
        decision = { call: { name: proposal?.name, arguments: proposal?.arguments ?? {} } };
      else if (mode === "correct")
        decision = {
          call: { name: toolName, arguments: fromFormValues(tool?.parameters ?? {}, form.values) },
        };
      else if (mode === "value") decision = { value: JSON.parse(valueText) };
      else decision = { skip: true };
    } catch (err) {
      return setError(mode === "value" ? "The value must be valid JSON." : (err as Error).message);
    }
    setBusy(true);
    try {
      await api.post(`/api/runs/${encodeURIComponent(entry.runId)}/resolve`, {
        nodeId: entry.nodeId,
        ...(entry.item === undefined ? {} : { item: entry.item }),
        by: by.trim(),
        ...decision,
      });
      onDone();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const radio = (m: Mode, label: string, disabled = false) => (
    <label class={disabled ? "disabled" : ""}>
      <input
        type="radio"
        name={`mode-${key}`}
        value={m}
        checked={mode === m}
        disabled={disabled}
        onChange={() => setMode(m)}
      />{" "}
      {label}
    </label>
  );

  return (
    <form class="decision" onSubmit={(e) => void submit(e)}>
      <div class="modes">
        {radio("accept", "Accept the proposal", !proposedTool)}
        {radio("correct", "Correct the call", entry.tools.length === 0)}
        {radio("value", "Give a value")}
        {radio("skip", "Skip")}
      </div>
      {mode === "correct" ? (
        <div class="correct">
          <label>
            Tool{" "}
            <select
              name="tool"
              value={toolName}
              onChange={(e) => {
                const name = (e.target as HTMLSelectElement).value;
                setToolName(name);
                setForm(initial(name));
              }}
            >
              {entry.tools.map((t) => (
                <option key={t.name} value={t.name}>
                  {show(t.name)}
                </option>
              ))}
            </select>
          </label>
          {tool ? (
            <SchemaForm
              schema={tool.parameters}
              values={form.values}
              onChange={(values) => setForm({ ...form, values })}
              idPrefix={key}
            />
          ) : null}
          {form.outside.length ? (
            <p class="muted">Proposed outside the schema's choices: {show(form.outside.join(", "))}</p>
          ) : null}
          {form.dropped.length ? (
            <p class="muted">Not in the tool's schema, left out: {show(form.dropped.join(", "))}</p>
          ) : null}
        </div>
      ) : null}
      {mode === "value" ? (
        <label class="value">
          Value (JSON, stored as the result; nothing runs)
          <textarea
            name="value"
            rows={3}
            value={valueText}
            onInput={(e) => setValueText((e.target as HTMLTextAreaElement).value)}
          />
        </label>
      ) : null}
      <p>
        <button type="submit" class="primary" disabled={busy}>
          Record decision
        </button>
        {error ? (
          <span class="error" role="alert">
            {show(error)}
          </span>
        ) : null}
      </p>
    </form>
  );
}
