/**
 * Credential shapes found inside any text, curated from the rules of secretlint's recommended preset and the
 * providers' documented key formats. Each pattern is linear-time on any input (no nested quantifiers, bounded
 * prefixes). `keep`: the replacement keeps capture group 1 (the `Bearer ` or `password=` before a secret), or
 * for URLs groups 1 and 2 around the password; `accept` filters matches that only look like a secret.
 */
export interface SecretPattern {
  name: string;
  pattern: RegExp;
  keep?: "prefix" | "around";
  accept?: (match: string) => boolean;
}

/** A 40-character run that mixes upper case, lower case and digits: AWS secret access keys look like this. */
function mixedBase64(match: string): boolean {
  return /[A-Z]/.test(match) && /[a-z]/.test(match) && /[0-9]/.test(match);
}

const KEY_WORDS =
  "password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth|credentials?";

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    name: "private-key",
    pattern: /-----BEGIN [A-Z ]{0,30}PRIVATE KEY-----[\s\S]*?-----END [A-Z ]{0,30}PRIVATE KEY-----/g,
  },
  { name: "bearer", pattern: /\b(bearer\s+)[A-Za-z0-9._~+/-]{8,}=*/gi, keep: "prefix" },
  { name: "basic-auth", pattern: /\b(basic\s+)[A-Za-z0-9+/]{8,}=*/gi, keep: "prefix" },
  {
    name: "url-password",
    pattern: /\b([a-z][a-z0-9+.-]{0,20}:\/\/[^\s:@/]{1,200}:)[^\s@/]{1,200}(@)/gi,
    keep: "around",
  },
  { name: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g },
  { name: "openai-anthropic", pattern: /\bsk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_-]{16,}/g },
  { name: "stripe", pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}/g },
  { name: "google-api-key", pattern: /\bAIza[0-9A-Za-z_-]{30,}/g },
  { name: "aws-access-key-id", pattern: /\b(?:AKIA|ASIA|AROA|AIDA|AGPA|ANPA)[0-9A-Z]{16}\b/g },
  {
    name: "aws-secret-access-key",
    pattern: /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g,
    accept: mixedBase64,
  },
  { name: "github", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g },
  { name: "gitlab", pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { name: "slack-token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { name: "slack-webhook", pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g },
  { name: "npm", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: "huggingface", pattern: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { name: "sendgrid", pattern: /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g },
  {
    // `password=hunter2`, `"api_key": "…"`, `?access_token=…`: a secret word, then = or :, then the value.
    name: "key-value",
    pattern: new RegExp(
      `\\b((?:[a-z0-9]{1,20}[_-]){0,3}(?:${KEY_WORDS})["']?\\s{0,5}[=:]\\s{0,5}["']?)[^\\s"'&,;}<>]{1,500}`,
      "gi",
    ),
    keep: "prefix",
  },
];
