import type { Llama, LlamaModel } from "node-llama-cpp";
import { DelegateBackendError } from "../../errors/delegate-backend-error.js";

/** The node-llama-cpp module, loaded on first use (it is an optional peer dependency). */
export type NodeLlamaCpp = typeof import("node-llama-cpp");

import type { GpuOption } from "./gpu-option.js";

export type { GpuOption };

let modulePromise: Promise<NodeLlamaCpp> | undefined;

/**
 * Imports node-llama-cpp, or throws an error that names the missing package and the exact version to install.
 */
export function importNodeLlamaCpp(): Promise<NodeLlamaCpp> {
  modulePromise ??= import("node-llama-cpp").catch((cause: unknown) => {
    modulePromise = undefined;
    const code = (cause as { code?: string }).code;
    const hint =
      code === "ERR_MODULE_NOT_FOUND"
        ? "it is not installed. Install the optional peer dependency with `npm i -E node-llama-cpp@3.21.1`."
        : `importing it failed: ${(cause as Error).message}`;
    throw new DelegateBackendError("local", `LocalDelegate needs the package node-llama-cpp, but ${hint}`, {
      cause,
      code: "DELEGATE_UNAVAILABLE",
    });
  });
  return modulePromise;
}

const llamas = new Map<string, Promise<Llama>>();
const models = new Map<string, { model: Promise<LlamaModel>; refs: number }>();

/** One Llama instance per GPU setting, shared by every delegate in the process. */
export function sharedLlama(gpu: GpuOption): Promise<Llama> {
  const key = String(gpu);
  let llama = llamas.get(key);
  if (!llama) {
    llama = importNodeLlamaCpp().then((m) =>
      m.getLlama({ gpu, build: "never", logLevel: m.LlamaLogLevel.error }),
    );
    llama.catch(() => llamas.delete(key));
    llamas.set(key, llama);
  }
  return llama;
}

/**
 * Loads a model once per (path, GPU setting) and counts its users; {@link releaseModel} disposes it when the
 * last user lets go.
 */
export function acquireModel(path: string, gpu: GpuOption): Promise<LlamaModel> {
  const key = `${String(gpu)}\0${path}`;
  let entry = models.get(key);
  if (!entry) {
    const model = sharedLlama(gpu).then((llama) => llama.loadModel({ modelPath: path }));
    entry = { model, refs: 0 };
    models.set(key, entry);
    model.catch(() => models.delete(key));
  }
  entry.refs++;
  return entry.model;
}

/** Drops one user of a model loaded by {@link acquireModel}; disposes it after the last. */
export async function releaseModel(path: string, gpu: GpuOption): Promise<void> {
  const key = `${String(gpu)}\0${path}`;
  const entry = models.get(key);
  if (!entry) return;
  entry.refs--;
  if (entry.refs > 0) return;
  models.delete(key);
  const model = await entry.model.catch(() => undefined);
  await model?.dispose();
}

/**
 * A model path, or a model URI (`hf:…`, `https://…`) resolved — and downloaded where a network exists —
 * through node-llama-cpp's own `resolveModelFile`.
 */
export async function resolveModelPath(model: string, directory?: string): Promise<string> {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(model) || /^[a-z]:[\\/]/i.test(model)) return model;
  const m = await importNodeLlamaCpp();
  return m.resolveModelFile(model, directory ? { directory, cli: false } : { cli: false });
}
