import { lookup } from "node:dns/promises";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { ModelFetchError } from "../../errors/index.js";
import { modelUriFor } from "./model-catalogue.js";
import { importNodeLlamaCpp } from "./node-llama-cpp-loader.js";

/** deputy's model cache: `${DEPUTY_CACHE:-~/.cache/deputy}/models` (scripts/models.sh caches there too). */
export function modelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.DEPUTY_CACHE ?? join(homedir(), ".cache", "deputy"), "models");
}

/** Options of {@link pullModel}. */
export interface PullModelOptions {
  /** The cache folder. Default {@link modelCacheDir}. */
  directory?: string;
  /** Show node-llama-cpp's progress bar (on a terminal). Default false. */
  progress?: boolean;
  /** Hugging Face token for gated models. */
  huggingFaceToken?: string;
  /** How long to wait for the download to start (node-llama-cpp retries without end offline). Default 60 000. */
  startTimeoutMs?: number;
}

/** The host a model URI downloads from. */
function hostOf(uri: string): string {
  return uri.startsWith("hf:") ? "huggingface.co" : new URL(uri).hostname;
}

/**
 * Downloads a catalogue model or an `hf:OWNER/REPO/FILE` / `https://` URI into the cache through
 * node-llama-cpp's own downloader (resumes a partial download, skips a complete file, checks its size, shows
 * progress) and resolves to the file's path. Downloads land in `<cache>/hf/`. An unknown name, no network or a
 * failed download is a {@link ModelFetchError}; a cache folder this call created is removed again.
 */
export async function pullModel(nameOrUri: string, options: PullModelOptions = {}): Promise<string> {
  const uri = modelUriFor(nameOrUri);
  if (!uri) {
    throw new ModelFetchError(
      nameOrUri,
      `Unknown model "${nameOrUri}": expected a catalogue name (deputy models list --catalogue) or hf:OWNER/REPO/FILE.gguf.`,
    );
  }
  const dirPath = join(options.directory ?? modelCacheDir(), "hf");
  const existed = existsSync(dirPath);
  const host = hostOf(uri);
  try {
    await lookup(host);
  } catch (cause) {
    throw new ModelFetchError(nameOrUri, `Could not fetch ${uri}: cannot resolve ${host} (no network?).`, {
      cause,
    });
  }
  const m = await importNodeLlamaCpp();
  let timer: NodeJS.Timeout | undefined;
  try {
    const started = m.createModelDownloader({
      modelUri: uri,
      dirPath,
      showCliProgress: options.progress ?? false,
      skipExisting: true,
      ...(options.huggingFaceToken ? { tokens: { huggingFace: options.huggingFaceToken } } : {}),
    });
    const timeoutMs = options.startTimeoutMs ?? 60_000;
    const downloader = await Promise.race([
      started,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${host} did not answer within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
        timer.unref();
      }),
    ]);
    clearTimeout(timer);
    return await downloader.download();
  } catch (cause) {
    clearTimeout(timer);
    if (!existed && existsSync(dirPath) && readdirSync(dirPath).length === 0)
      rmSync(dirPath, { recursive: true });
    const reason = ((cause as Error).message ?? String(cause)).split("\n")[0];
    throw new ModelFetchError(nameOrUri, `Could not fetch ${uri}: ${reason}`, { cause });
  }
}

/** A model file in the cache. */
export interface CachedModel {
  /** Path relative to the cache folder, e.g. `qwen2.5-coder-0.5b-instruct/0.9.0/qwen2.5-coder-0.5b-instruct.gguf`. */
  name: string;
  path: string;
  bytes: number;
}

/** Every `.gguf` file under the cache folder (pulled ones and those scripts/models.sh fetched), sorted by name. */
export function listCachedModels(directory: string = modelCacheDir()): CachedModel[] {
  if (!existsSync(directory)) return [];
  const out: CachedModel[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith(".gguf") && !entry.name.startsWith(".")) {
        out.push({ name: relative(directory, path), path, bytes: statSync(path).size });
      }
    }
  };
  walk(directory);
  return out.sort((a, b) => a.name.localeCompare(b.name));
}
