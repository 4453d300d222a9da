import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { DeputyError } from "../../errors/deputy-error.js";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
};

/** One built file of the client. */
export interface Asset {
  body: Uint8Array;
  type: string;
}

/**
 * Where `npm run build` puts the client: `dist/ui/public` of this package. This file sits three folders below the
 * package root both as source (`src/ui/server`) and built (`dist/ui/server`).
 */
export function defaultAssetsDir(): string {
  return fileURLToPath(new URL("../../../dist/ui/public/", import.meta.url));
}

/**
 * Reads the built client into memory, keyed by URL path (`/index.html`, `/assets/x.js`). A fixed map of files
 * read once: no path from a request ever reaches the file system.
 */
export function loadAssets(dir: string = defaultAssetsDir()): Map<string, Asset> {
  if (!existsSync(join(dir, "index.html"))) {
    throw new DeputyError(
      "UI_NOT_BUILT",
      `The console's client is not built (no ${join(dir, "index.html")}); run \`npm run build\`.`,
    );
  }
  const assets = new Map<string, Asset>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else
        assets.set("/" + relative(dir, path).split(sep).join("/"), {
          body: readFileSync(path),
          type: TYPES[extname(name)] ?? "application/octet-stream",
        });
    }
  };
  walk(dir);
  return assets;
}
