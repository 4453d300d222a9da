// Model output and tool data are untrusted. Preact renders strings as text nodes (never markup); this also makes
// characters that could mislead a reader visible: terminal escapes and other control characters, and the
// bidirectional overrides of "Trojan Source".
import { showUnsafe } from "../../traces/terminal-text.js";

/** The text with control characters shown as symbols (`ESC` → `␛`) or `\u{…}` escapes (the sanitizer deputy's
 * terminal output uses too, with the page's own symbols). */
export function visible(text: string): string {
  return showUnsafe(text, (code) =>
    code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? "\u2421" : `\\u{${code.toString(16)}}`,
  );
}

/** Any value as readable text: strings as they are, the rest as pretty JSON; always through {@link visible}. */
export function show(value: unknown, pretty = true): string {
  if (typeof value === "string") return visible(value);
  const json = JSON.stringify(value, null, pretty ? 2 : 0);
  return visible(json ?? String(value));
}

/** Milliseconds as `850 ms`, `12.4 s`, `3 min 5 s`. */
export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A USD amount, with enough digits for the small costs of model calls. */
export function usd(cost: number | undefined): string {
  if (!cost) return "$0";
  return cost < 0.01 ? `$${cost.toPrecision(2)}` : `$${cost.toFixed(2)}`;
}

/** An ISO time as local `YYYY-MM-DD HH:MM:SS`. */
export function when(iso: string | undefined): string {
  if (!iso) return "–";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return visible(iso);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
