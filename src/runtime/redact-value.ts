import { knownSecrets } from "./known-secrets.js";
import { setOwn } from "./own.js";
import { SECRET_PATTERNS, type SecretPattern } from "./secret-patterns.js";

/** What a redacted value is replaced with. */
export const REDACTED = "[REDACTED]";

/** A user rule: redact the value of every key matching `key`, and/or every substring matching `value`. */
export interface RedactRule {
  /** A key name (compared case-insensitively) or a pattern tested against key names. */
  key?: string | RegExp;
  /** A pattern whose matches are replaced inside every string (use the `g` flag to replace all). */
  value?: RegExp;
}

/** How traces are redacted. Everything is on by default. */
export interface RedactOptions {
  /** Redact values under secret-looking keys (password, token, api key, authorization, cookie, secret, …). Default `true`. */
  secretKeys?: boolean;
  /** Redact arguments a tool marks sensitive (`sensitive: [...]`, `"x-sensitive": true`). Default `true`. */
  sensitiveArguments?: boolean;
  /**
   * Replace credential shapes inside any string (`Bearer …`, `sk-…`, Stripe, Google, AWS, GitHub, Slack keys, JWTs,
   * passwords in URLs, `password=…`; see `secret-patterns.ts`) and known secret values (credential-named
   * environment variables, registered backend keys). Default `true`.
   */
  secretValues?: boolean;
  /** Your own rules, applied after the defaults. */
  rules?: RedactRule[];
}

const SECRET_WORDS = new Set([
  "password",
  "passwd",
  "pwd",
  "secret",
  "token",
  "cookie",
  "authorization",
  "credential",
  "credentials",
  "passphrase",
  "bearer",
]);
const SECRET_PAIRS = new Set([
  "api key",
  "apikey",
  "private key",
  "access key",
  "session id",
  "client secret",
  "set cookie",
  "auth token",
]);

/**
 * True for keys that name a secret: the key is split into words (`apiKey`, `api_key`, `X-Api-Key` → `api key`)
 * and any secret word (`password`, `token`, `secret`, `cookie`, `authorization`, …) or pair (`api key`,
 * `private key`, `session id`, …) marks it. `max_tokens` is not a secret (`tokens` is not `token`).
 */
export function isSecretKey(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  if (words.some((w) => SECRET_WORDS.has(w))) return true;
  for (let i = 0; i + 1 < words.length; i++) if (SECRET_PAIRS.has(`${words[i]} ${words[i + 1]}`)) return true;
  return words.some((w) => SECRET_PAIRS.has(w));
}

/**
 * A redactor built once from options; apply it to many values. It lives below every part that emits what a model
 * or a provider wrote (traces, the run store, delegation events, CLI output), so each of them imports it directly
 * and no entry point has to install it: `Redactor` in `deputy-js/traces` extends it with trace records.
 */
export class ValueRedactor {
  readonly #secretKeys: boolean;
  readonly #sensitive: boolean;
  readonly #secretValues: boolean;
  readonly #valuePatterns: SecretPattern[];
  readonly #keyRules: (string | RegExp)[];

  constructor(options: RedactOptions = {}) {
    this.#secretKeys = options.secretKeys !== false;
    this.#sensitive = options.sensitiveArguments !== false;
    const rules = options.rules ?? [];
    this.#secretValues = options.secretValues !== false;
    // Global copies made once: `replace` needs the `g` flag, and a copy per string scrubbed cost as much as the scrub.
    this.#valuePatterns = [
      ...(this.#secretValues ? SECRET_PATTERNS : []),
      ...rules.flatMap((r) => (r.value ? [{ name: "rule", pattern: r.value }] : [])),
    ].map((p) =>
      p.pattern.global ? p : { ...p, pattern: new RegExp(p.pattern.source, `${p.pattern.flags}g`) },
    );
    this.#keyRules = rules.flatMap((r) => (r.key === undefined ? [] : [r.key]));
  }

  /** True when the value under `key` must be redacted (`extra`: sensitive names for this value). */
  redactsKey(key: string, extra: readonly string[] = []): boolean {
    if (this.#sensitive && extra.includes(key)) return true;
    if (this.#secretKeys && isSecretKey(key)) return true;
    return this.#keyRules.some((r) =>
      typeof r === "string" ? r.toLowerCase() === key.toLowerCase() : testOnce(r, key),
    );
  }

  /** Replaces credential-looking substrings, known secrets and the given literal secrets inside a string. */
  redactString(text: string, literals: readonly string[] = []): string {
    return this.#scrub(text, this.#secretsWith(literals));
  }

  /** The literal secrets to replace: the given ones, then every known secret (read once per redaction). */
  #secretsWith(literals: readonly string[]): readonly string[] {
    return this.#secretValues ? [...literals, ...knownSecrets()] : literals;
  }

  #scrub(text: string, secrets: readonly string[]): string {
    let out = text;
    for (const secret of secrets)
      if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(REDACTED);
    for (const { pattern, keep, accept } of this.#valuePatterns) {
      pattern.lastIndex = 0;
      out = out.replace(pattern, (match: string, ...groups: unknown[]) => {
        if (accept && !accept(match)) return match;
        if (match.includes(REDACTED)) return match;
        if (keep === "prefix" && typeof groups[0] === "string") return `${groups[0]}${REDACTED}`;
        if (keep === "around" && typeof groups[0] === "string")
          return `${groups[0]}${REDACTED}${String(groups[1])}`;
        return REDACTED;
      });
    }
    return out;
  }

  /**
   * A redacted copy of `value`: values under redacted keys (at any depth) become `[REDACTED]`, strings are
   * scrubbed. The string values that were redacted by key are pushed to `found` so callers can scrub copies of
   * them elsewhere (a model's raw output, the instruction).
   */
  redactValue(
    value: unknown,
    sensitive: readonly string[] = [],
    found: string[] = [],
    literals: readonly string[] = [],
  ): unknown {
    return this.#redactValue(value, sensitive, found, this.#secretsWith(literals));
  }

  #redactValue(
    value: unknown,
    sensitive: readonly string[],
    found: string[],
    secrets: readonly string[],
  ): unknown {
    if (typeof value === "string") return this.#scrub(value, secrets);
    if (Array.isArray(value)) return value.map((v) => this.#redactValue(v, sensitive, found, secrets));
    if (typeof value !== "object" || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // A secret can be a key too (`{ "sk-live…": true }`): the key is scrubbed like any string.
      let key = this.#scrub(k, secrets);
      while (key !== k && Object.hasOwn(out, key)) key += "'";
      if (this.redactsKey(k, sensitive)) {
        collectStrings(v, found);
        setOwn(out, key, REDACTED);
      } else {
        setOwn(out, key, this.#redactValue(v, sensitive, found, secrets));
      }
    }
    return out;
  }
}

function collectStrings(value: unknown, out: string[]) {
  if (typeof value === "string") out.push(value);
  else if (typeof value === "number") out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, out);
  else if (typeof value === "object" && value !== null)
    for (const v of Object.values(value)) collectStrings(v, out);
}

function testOnce(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  return pattern.test(text);
}

/** deputy's one value redactor with every default on (the run store, delegation events, CLI output). */
const defaultValueRedactor = new ValueRedactor();

/** A scrubbed copy of any value (keys, strings, known secrets), every default on. */
export function redactRecord(value: unknown): unknown {
  return defaultValueRedactor.redactValue(value);
}

/** A scrubbed copy of a text, every default on. */
export function redactText(text: string): string {
  return defaultValueRedactor.redactString(text);
}
