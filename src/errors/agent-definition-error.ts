import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.AgentDefinitionError");

/** The codes of {@link AgentDefinitionError}. */
export type AgentDefinitionErrorCode = "AGENT_DEFINITION";

/**
 * An agent, contract or `delegateTo` declaration cannot work as written. The message always says how to fix
 * it (rename with `as`, narrow with `only`, add a contract, …).
 */
export class AgentDefinitionError extends DeputyError<AgentDefinitionErrorCode> {
  /** The agent being defined (or run), when known. */
  readonly agent: string | undefined;

  constructor(message: string, options?: { agent?: string; cause?: unknown }) {
    super("AGENT_DEFINITION", message, options);
    markError(this, marker);
    this.agent = options?.agent;
  }

  /** True for a AgentDefinitionError from this copy of the package or another. */
  static override isInstance(error: unknown): error is AgentDefinitionError {
    return isMarked(error, marker);
  }

  override toJSON() {
    return { ...super.toJSON(), details: { agent: this.agent } };
  }
}
