import type { RunCoordinates } from "../records/delegate-task.js";
import type { Hop } from "../records/hop.js";

/** One proposal hop, as written to a trace sink: the hop, its run coordinates and its time. Never part of a checkpoint or a manifest. */
export interface DelegateTrace extends RunCoordinates, Hop {
  time: string;
}

/** Where traces go. `write` must never throw into the run (sinks swallow and count their own failures). */
export interface TraceSink {
  write(trace: DelegateTrace): void | Promise<void>;
  close?(): Promise<void>;
}
