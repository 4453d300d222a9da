/** GPU selection passed to node-llama-cpp's `getLlama` (its own file, so public types need no node-llama-cpp). */
export type GpuOption = false | "auto" | "cuda" | "vulkan" | "metal";
