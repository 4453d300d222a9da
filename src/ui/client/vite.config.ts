import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The console's client: Preact, bundled into dist/ui/public, which ships in the npm package. Nothing is
// fetched from a CDN, and the built page has no inline script or style (the server's CSP forbids both).
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/",
  logLevel: "warn",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("../../../dist/ui/public", import.meta.url)),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: "es2022",
    sourcemap: false,
  },
});
