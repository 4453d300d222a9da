import { createRequire } from "node:module";

/** The parts of the AI SDK (`ai`, the current major) that deputy's tool adapters use. */
export type AiSdk = Pick<typeof import("ai"), "asSchema" | "jsonSchema">;

const require = createRequire(import.meta.url);
let loaded: AiSdk | undefined;

/**
 * The `ai` package, loaded on first use. It is not imported at the top of the tools module because it costs
 * ~0.3–0.5 s to load here and most runs never see an AI SDK tool; a caller that has one has already loaded
 * `ai` itself, so this finds it in Node's module cache. Synchronous (Node ≥ 22.12 `require`s an ES module),
 * because turning `tools` into deputy tools is synchronous everywhere (`new ToolRegistry(tools)`).
 *
 * @internal
 */
export function loadAiSdk(): AiSdk {
  return (loaded ??= require("ai") as AiSdk);
}
