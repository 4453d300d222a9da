import type { TraceSink } from "../traces/trace.js";
import type { ToolCallDelegate } from "./protocol.js";

// What delegate nodes read from the host, declared here so the engine (src/plan) imports nothing from delegate/.
declare module "../plan/node-executor.js" {
  interface ExecutionHost {
    /** The delegate backend chain, first to last (`retry_backend` walks it). */
    delegates: ToolCallDelegate[];
    /** Where delegate traces go (none: nowhere). */
    traceSink: TraceSink | undefined;
    /** The host half of the side-effect double key. Default `false`. */
    allowDelegateSideEffects: boolean;
  }
}
