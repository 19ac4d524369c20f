// Build for the /console/ prefix of the one public origin (spec part 1, rule 2).
// The proxy serves dist/ at /console/ and answers every other /console/* path (for example
// /console/users) with /console/index.html, so the page reads its state from the URL.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/console/",
  appType: "spa",
  build: {
    outDir: "dist",
    assetsDir: "assets",
    emptyOutDir: true,
    // Every asset becomes a file under /console/assets/: no data: URIs and nothing inline,
    // so the page runs under the provider's Content-Security-Policy unchanged.
    assetsInlineLimit: 0,
    // The module-preload polyfill is unneeded by the browsers we support.
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
