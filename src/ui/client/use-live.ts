import { useEffect, useState } from "preact/hooks";
import { tokenHeader } from "./api.js";

/** What a run page knows of its live stream: whether it is connected, and the last run event's number. */
export interface LiveState {
  connected: boolean;
  /** The `seq` of the last event of a resume this console runs, when one came. */
  lastSeq?: number;
}

/**
 * Follows a run's live stream (server-sent events, read with fetch so the token goes in its header) and calls
 * `onChange` after the run changed — at most once per `coalesceMs`, however many events come at once. Reconnects
 * after a dropped stream.
 */
export function useLive(runId: string, onChange: () => void, coalesceMs = 150): LiveState {
  const [state, setState] = useState<LiveState>({ connected: false });
  useEffect(() => {
    const abort = new AbortController();
    let pending: ReturnType<typeof setTimeout> | undefined;
    const changed = () => {
      pending ??= setTimeout(() => {
        pending = undefined;
        onChange();
      }, coalesceMs);
    };
    const follow = async () => {
      while (!abort.signal.aborted) {
        try {
          const res = await fetch(`/api/runs/${encodeURIComponent(runId)}/live`, {
            headers: tokenHeader(),
            signal: abort.signal,
          });
          if (res.ok && res.body) {
            setState((s) => ({ ...s, connected: true }));
            await readFrames(res.body, onFrame);
          }
        } catch {
          // Dropped or refused: try again shortly (unless the page left).
        }
        setState((s) => ({ ...s, connected: false }));
        if (!abort.signal.aborted) await new Promise((r) => setTimeout(r, 1000));
      }
    };
    const onFrame = (frame: { event: string; data: string }) => {
      if (frame.event === "run-event") {
        const seq = (JSON.parse(frame.data) as { seq?: number }).seq;
        if (typeof seq === "number") setState((s) => ({ ...s, lastSeq: seq }));
        changed();
      } else if (frame.event === "change") changed();
    };
    void follow();
    return () => {
      abort.abort();
      clearTimeout(pending);
    };
  }, [runId]);
  return state;
}

/** Reads server-sent event frames from a response body until it ends. */
async function readFrames(
  body: ReadableStream<Uint8Array>,
  onFrame: (frame: { event: string; data: string }) => void,
) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      onFrame(parseFrame(buffer.slice(0, end)));
      buffer = buffer.slice(end + 2);
    }
  }
}

/** One server-sent event frame: its `event:` and its `data:` lines joined. */
function parseFrame(frame: string): { event: string; data: string } {
  let event = "message";
  const data: string[] = [];
  for (const line of frame.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  return { event, data: data.join("\n") };
}
