import { DeputyError } from "./deputy-error.js";

/**
 * An agent, contract or `delegateTo` declaration cannot work as written. The message always says how to fix
 * it (rename with `as`, narrow with `only`, add a contract, …).
 */
export class AgentDefinitionError extends DeputyError {
  /** The agent being defined (or run), when known. */
  readonly agent: string | undefined;

  constructor(message: string, options?: { agent?: string; cause?: unknown }) {
    super("AGENT_DEFINITION", message, options);
    this.agent = options?.agent;
  }

  override toJSON() {
    return { ...super.toJSON(), details: { agent: this.agent } };
  }
}
