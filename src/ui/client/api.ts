// Every call carries the per-start token in a header (never a cookie), read once from the URL fragment the
// console printed and kept in this tab's sessionStorage.
const KEY = "deputy-token";

/** Takes the token from `#token=…` (then drops it from the address bar) or from this tab's storage. */
export function initToken(): string | null {
  const match = /^#token=([A-Za-z0-9_-]+)/.exec(location.hash);
  if (match) {
    sessionStorage.setItem(KEY, match[1]!);
    history.replaceState(null, "", location.pathname + "#/");
  }
  return sessionStorage.getItem(KEY);
}

/** An answer of the API that is not 2xx. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The header every API request carries: the console's token. */
export function tokenHeader(): Record<string, string> {
  return { "X-Deputy-Token": sessionStorage.getItem(KEY) ?? "" };
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = tokenHeader();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const res = await fetch(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!res.ok)
    throw new ApiError(res.status, data.error?.code ?? "HTTP", data.error?.message ?? res.statusText);
  return data as T;
}

export const api = {
  get: <T>(path: string) => call<T>("GET", path),
  post: <T>(path: string, body: unknown) => call<T>("POST", path, body),
};

/** `/api/x?a=1&b=2` from a path and the defined parameters. */
export function withQuery(path: string, params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
