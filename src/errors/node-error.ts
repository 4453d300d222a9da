import { DeputyError, isMarked, markError } from "./deputy-error.js";

const marker = Symbol.for("deputy.error.NodeError");

/** The codes of {@link NodeError}. */
export type NodeErrorCode = "FOR_EACH_NOT_A_LIST" | "FOR_EACH_TOO_MANY" | "ITEM_FAILED" | "STORE_AS_INVALID";

/** A node could not run as written: its for_each source is not a list or too long, an item failed under `on_item_error: "fail"`, or its `store_as` rendered to no key. Recorded in the manifest as the node's error. */
export class NodeError extends DeputyError<NodeErrorCode> {
  constructor(code: NodeErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    markError(this, marker);
  }

  /** True for a NodeError from this copy of the package or another. */
  static override isInstance(error: unknown): error is NodeError {
    return isMarked(error, marker);
  }
}
