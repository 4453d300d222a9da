import fc from "fast-check";

// Generated secrets for the redaction tests: each shape as it appears in text, and the part that must never
// survive in anything deputy writes or prints.
// At least one digit: fast-check's strings also draw well-known names ("arguments", "constructor") that the
// output holds as ordinary words (a proposal's `arguments` key), which would read as a leak of that "secret".
export const alnum = (min: number, max: number) =>
  fc
    .string({
      unit: fc.constantFrom(..."ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"),
      minLength: min,
      maxLength: max,
    })
    .filter((s) => /[0-9]/.test(s));
export const b64url = (min: number, max: number) =>
  fc.string({
    unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"),
    minLength: min,
    maxLength: max,
  });

/** Secret shapes: the text as it appears, and the part that must never survive. */
export const secretShapes: fc.Arbitrary<{ shape: string; text: string; secret: string }> = fc.oneof(
  alnum(20, 40).map((t) => ({ shape: "bearer (lowercase)", text: `authorization: bearer ${t}`, secret: t })),
  alnum(20, 40).map((t) => ({ shape: "Bearer", text: `Bearer ${t}`, secret: t })),
  alnum(24, 32).map((t) => ({ shape: "stripe", text: `sk_live_${t}`, secret: t })),
  b64url(35, 35).map((t) => ({ shape: "google", text: `AIza${t}`, secret: t })),
  fc
    .tuple(b64url(10, 30), b64url(10, 40), b64url(20, 43))
    .map(([h, p, s]) => ({ shape: "jwt", text: `eyJ${h}.eyJ${p}.${s}`, secret: `${p}.${s}` })),
  alnum(10, 20).map((pw) => ({
    shape: "url password",
    text: `postgres://app:${pw}@db.internal:5432/x`,
    secret: pw,
  })),
  fc
    .tuple(alnum(37, 37), fc.constantFrom("A", "Q"), fc.constantFrom("a", "z"), fc.constantFrom("7", "3"))
    .map(([s, u, l, d]) => `${u}${s}${l}${d}`.slice(0, 40))
    .map((key) => ({ shape: "aws secret key", text: `aws_secret_access_key=${key}`, secret: key })),
  fc
    .tuple(alnum(37, 37), fc.constantFrom("A", "Q"), fc.constantFrom("a", "z"), fc.constantFrom("7", "3"))
    .map(([s, u, l, d]) => `${u}${l}${d}${s}`.slice(0, 40))
    .map((key) => ({ shape: "aws secret key (bare)", text: `creds ${key} end`, secret: key })),
  alnum(16, 16).map((t) => ({
    shape: "aws key id",
    text: `AKIA${t.toUpperCase()}`,
    secret: t.toUpperCase(),
  })),
  alnum(8, 20).map((pw) => ({
    shape: "password= in text",
    text: `login with password=${pw} please`,
    secret: pw,
  })),
  alnum(8, 20).map((pw) => ({ shape: "JSON password", text: `{"db_password": "${pw}"}`, secret: pw })),
  alnum(20, 30).map((t) => ({
    shape: "query token",
    text: `https://x.io/cb?access_token=${t}&a=1`,
    secret: t,
  })),
  alnum(30, 40).map((t) => ({ shape: "openai", text: `sk-proj-${t}`, secret: t })),
  alnum(30, 40).map((t) => ({ shape: "github", text: `ghp_${t}`, secret: t })),
  alnum(40, 60).map((t) => ({
    shape: "private key",
    text: `-----BEGIN RSA PRIVATE KEY-----\n${t}\n-----END RSA PRIVATE KEY-----`,
    secret: t,
  })),
);
