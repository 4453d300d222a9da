import { timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";

/** The header that carries the per-start token (a header, not a cookie: a cross-site form cannot set it). */
export const TOKEN_HEADER = "x-deputy-token";

/**
 * The console's Content-Security-Policy: only its own scripts, styles and API, no inline code, no frames, no
 * plugins. Model output that slipped into markup as HTML still could not run.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Options of {@link securityMiddleware}. */
export interface SecurityOptions {
  /** The per-start token. */
  token: string;
  /** Host names the server answers to (any port); a request with another `Host` is refused (DNS rebinding). */
  hostnames: readonly string[];
}

/**
 * Guards every request: the `Host` must be one the console was bound to (so a DNS-rebound name cannot read it),
 * an `Origin`, when sent, must be the console's own, and every `/api` request must carry the token in
 * {@link TOKEN_HEADER}. Every response gets the CSP and anti-sniffing headers.
 */
export function securityMiddleware(options: SecurityOptions): MiddlewareHandler {
  const expected = Buffer.from(options.token);
  const hostnames = new Set(options.hostnames.map((h) => h.toLowerCase()));
  return async (c, next) => {
    const host = c.req.header("host") ?? "";
    if (!hostnames.has(hostnameOf(host))) return c.text("Unknown host.", 421);
    const origin = c.req.header("origin");
    if (origin !== undefined && origin !== `http://${host}`)
      return c.text("Cross-origin request refused.", 403);
    if (c.req.path.startsWith("/api/")) {
      const given = Buffer.from(c.req.header(TOKEN_HEADER) ?? "");
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return c.json({ error: { code: "UNAUTHORIZED", message: "Missing or wrong console token." } }, 401);
      }
    }
    await next();
    c.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    c.header("Cross-Origin-Resource-Policy", "same-origin");
    c.header("Cache-Control", "no-store");
    return undefined;
  };
}

/** `127.0.0.1:8080` → `127.0.0.1`, `[::1]:80` → `::1`. */
function hostnameOf(host: string): string {
  const h = host.toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]"));
  const colon = h.lastIndexOf(":");
  return colon < 0 ? h : h.slice(0, colon);
}
