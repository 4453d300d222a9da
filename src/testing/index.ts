/// <reference types="node" preserve="true" />
/**
 * `deputy-js/testing`: real stand-ins for tests — a seeded random-weight GGUF model that llama.cpp loads
 * ({@link writeTinyModel}), a llama-server process on a free loopback port ({@link startLlamaServer}), and the
 * real models `scripts/models.sh` caches ({@link findRealModel}). The mock language model for agents is
 * `deputy-js/agents`' `mockModel`.
 *
 * @packageDocumentation
 */
export {
  writeTinyModel,
  TINY_SHAPE,
  QWEN25_05B_SHAPE,
  type ModelShape,
  type TinyModelOptions,
  type TinyModelInfo,
} from "./tiny-model.js";
export {
  startLlamaServer,
  findLlamaServerBinary,
  type StartLlamaServerOptions,
  type LlamaServerProcess,
} from "./llama-server.js";
export { findRealModel, REAL_MODELS, type RealModelName } from "./real-model.js";
