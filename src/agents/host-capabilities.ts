import type { CallScope } from "./call-scope.js";

// What agent nodes and escalate_to agents read from the host, declared here so the engine (src/plan) imports
// nothing from agents/.
declare module "../plan/node-executor.js" {
  interface ExecutionHost {
    /**
     * The delegated call the run executes inside (an agent's `delegateToPlan`), absent for a top-level run: the
     * plan's agents then spend from the calling agent's remaining budgets and count toward its `maxDepth`.
     */
    budgetScope?: CallScope;
  }
}
