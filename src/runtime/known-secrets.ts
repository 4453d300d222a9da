/**
 * Secret values deputy knows of, redacted wherever they appear whatever their shape: the values of environment
 * variables named like credentials (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`, …) and values registered by
 * the code that holds them (a backend's API key), so a server that echoes the key in its error body cannot get it
 * into a trace, the store or the terminal.
 */
const registered = new Set<string>();
let fromEnv: { size: number; values: string[] } | undefined;

const SECRET_ENV = /(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?|PRIVATE_?KEY|ACCESS_?KEY|AUTH)/i;
/** Shorter values are too likely to occur by chance (`true`, a port number). */
const MIN_LENGTH = 8;

/** Adds a value to redact everywhere from now on (values shorter than 8 characters are ignored). */
export function registerSecret(value: string | undefined): void {
  if (typeof value === "string" && value.length >= MIN_LENGTH) registered.add(value);
}

/** Every known secret value, longest first (so a secret that contains another is replaced whole). */
export function knownSecrets(): string[] {
  const env = process.env;
  const size = Object.keys(env).length;
  if (!fromEnv || fromEnv.size !== size) {
    const values: string[] = [];
    for (const [name, value] of Object.entries(env)) {
      if (value && value.length >= MIN_LENGTH && SECRET_ENV.test(name)) values.push(value);
    }
    fromEnv = { size, values };
  }
  return [...new Set([...fromEnv.values, ...registered])].sort((a, b) => b.length - a.length);
}
