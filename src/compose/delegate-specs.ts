import { createDelegateSpecRegistry } from "../delegate/backends/register-specs.js";
import type { DelegateSpecRegistry } from "../delegate/delegate-spec.js";
import type { ToolCallDelegate } from "../delegate/protocol.js";
import { registerDistillSpecs } from "../distill/register-spec.js";

/**
 * A delegate spec registry with every built-in kind: `scripted=`, `local=`, `llama-server=`, `openai=` and
 * `distilled=`, and the `relevance=` and `examples=` options every kind accepts. What `--delegate` specs are
 * built with (`deputy run`, `resume`, the console's resumes); a new one each call, so a kind one caller adds
 * reaches no other.
 */
export function defaultDelegateSpecs(): DelegateSpecRegistry {
  return registerDistillSpecs(createDelegateSpecRegistry());
}

/**
 * One backend from a `--delegate` spec, with every built-in kind — what `deputy run --delegate SPEC` builds.
 * For kinds of your own, register them on a registry of yours (`defaultDelegateSpecs()`, then `register`) and
 * pass it.
 *
 * @example
 * const backend = await createDelegateFromSpec("llama-server=http://127.0.0.1:8080,maxTools=8");
 */
export function createDelegateFromSpec(
  spec: string,
  specs: DelegateSpecRegistry = defaultDelegateSpecs(),
): Promise<ToolCallDelegate> {
  return specs.create(spec);
}
