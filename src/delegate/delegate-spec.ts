import { DeputyError } from "../errors/deputy-error.js";
import type { ToolCallDelegate } from "./protocol.js";

/** Builds a backend from a spec's value (`FILE`, `URL[,key=value…]`). */
export type DelegateFactory = (value: string) => Promise<ToolCallDelegate>;

const factories = new Map<string, DelegateFactory>();

/** Registers a `--delegate KIND=…` kind. */
export function registerDelegateKind(kind: string, factory: DelegateFactory): void {
  factories.set(kind, factory);
}

/**
 * Builds a delegate backend from a CLI spec `KIND=VALUE` (e.g. `scripted=proposals.jsonl`).
 * (Placeholder registry: the delegate-core work registers the kinds.)
 */
export async function createDelegateFromSpec(spec: string): Promise<ToolCallDelegate> {
  const eq = spec.indexOf("=");
  const kind = eq < 0 ? spec : spec.slice(0, eq);
  const factory = factories.get(kind);
  if (!factory) {
    throw new DeputyError(
      "DELEGATE_SPEC_INVALID",
      `Unknown delegate kind "${kind}" in --delegate ${spec}; known: ${[...factories.keys()].join(", ") || "(none)"}.`,
    );
  }
  return factory(eq < 0 ? "" : spec.slice(eq + 1));
}
