import { isSecretKey, redactText } from "../runtime/redact-value.js";

/** What a secret in a recorded spec is replaced with (a resume that meets it asks for the value again). */
export const RECORDED_SECRET = "***";

/**
 * A `--tools` or `--delegate` value as a run may keep it (issue 38 item 5): a URL's password, a query parameter
 * or a command-line option with a secret-looking name (`?api_key=…`, `--token …`, `--api-key=…`), a `KEY=VALUE`
 * pair whose key names a secret, and any value of a known secret shape (bearer tokens, provider keys, JWTs, …)
 * are replaced. Keys that name an environment variable (`apiKeyEnv=VAR`) stay: the variable's name is no secret,
 * and is how a spec refers to one.
 */
export function redactRecordedSpec(spec: string): string {
  const secret = (key: string) => !/env$/i.test(key) && isSecretKey(key);
  let out = spec.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s@/]*@/gi, `$1:${RECORDED_SECRET}@`);
  out = out.replace(/([?&])([^=&#\s]+)=([^&#\s,]*)/g, (m, sep: string, key: string) =>
    secret(safeDecode(key)) ? `${sep}${key}=${RECORDED_SECRET}` : m,
  );
  out = out.replace(
    /(^|\s)(--?([A-Za-z0-9][A-Za-z0-9_-]*))(=|\s+)(?!-)(\S+)/g,
    (m, pre: string, flag: string, key: string, sep: string) =>
      secret(key) ? `${pre}${flag}${sep}${RECORDED_SECRET}` : m,
  );
  out = out.replace(/(^|[\s,:;])([A-Za-z_][A-Za-z0-9_]*)=([^\s,]+)/g, (m, pre: string, key: string) =>
    secret(key) ? `${pre}${key}=${RECORDED_SECRET}` : m,
  );
  return redactText(out);
}

/** True when a recorded spec had a secret taken out: it cannot be loaded as it is kept. */
export function lostSecret(spec: string): boolean {
  return spec.includes(RECORDED_SECRET) || spec.includes("[REDACTED]");
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
