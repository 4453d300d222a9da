import { DelegateBackendError } from "../../errors/index.js";
import { sleep } from "../../runtime/sleep.js";
import { abortError } from "./abort-error.js";

/** Options of {@link postJson}. */
export interface PostJsonOptions {
  backend: string;
  url: string;
  body: unknown;
  headers?: Record<string, string>;
  signal: AbortSignal;
  /** Extra attempts after a connection error (never after an HTTP answer). */
  retries: number;
  /** Base backoff between attempts, doubled each time. */
  backoffMs?: number;
}

/** Connection-level failure codes that are worth another attempt (the server is restarting or not up yet). */
const RETRYABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "ENOTFOUND",
]);

/**
 * POSTs JSON and returns the parsed JSON answer. Every failure is a {@link DelegateBackendError} with the cause:
 * connection errors (retried up to `retries` times with backoff), HTTP errors (status and the start of the body,
 * never retried), aborts and timeouts (code `DELEGATE_TIMEOUT` / `DELEGATE_ABORTED`), and bodies that are not
 * JSON. Headers are never put into error messages (they may carry an API key).
 */
export async function postJson(options: PostJsonOptions): Promise<unknown> {
  const { backend, url, signal } = options;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...options.headers },
        body: JSON.stringify(options.body),
        signal,
      });
    } catch (cause) {
      if (signal.aborted) throw abortError(backend, signal);
      const code = connectionCode(cause);
      if (code && RETRYABLE.has(code) && attempt < options.retries) {
        await sleep((options.backoffMs ?? 100) * 2 ** attempt, signal);
        if (signal.aborted) throw abortError(backend, signal);
        continue;
      }
      throw new DelegateBackendError(
        backend,
        `${backend}: cannot reach ${url} (${code ?? (cause as Error).message})`,
        {
          cause,
          code: "DELEGATE_CONNECTION",
        },
      );
    }
    let text: string;
    try {
      text = await response.text();
    } catch (cause) {
      if (signal.aborted) throw abortError(backend, signal);
      throw new DelegateBackendError(backend, `${backend}: the connection broke while reading the answer`, {
        cause,
        code: "DELEGATE_CONNECTION",
      });
    }
    if (!response.ok) {
      throw new DelegateBackendError(
        backend,
        `${backend}: HTTP ${response.status} from ${url}: ${text.slice(0, 300)}`,
        {
          code: "DELEGATE_HTTP",
          raw: text.slice(0, 2000),
        },
      );
    }
    try {
      return JSON.parse(text);
    } catch (cause) {
      throw new DelegateBackendError(backend, `${backend}: ${url} answered something that is not JSON`, {
        cause,
        raw: text.slice(0, 2000),
      });
    }
  }
}

/** The system error code under a fetch failure (undici wraps it in `cause`). */
function connectionCode(error: unknown): string | undefined {
  for (let e = error as { code?: string; cause?: unknown } | undefined, i = 0; e && i < 4; i++) {
    if (typeof e.code === "string") return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}
