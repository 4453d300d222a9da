import { createDelegateSpecRegistry } from "../delegate/backends/register-specs.js";
import type { DelegateSpecRegistry } from "../delegate/delegate-spec.js";
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
