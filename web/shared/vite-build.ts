/**
 * The Vite settings both frontends share. Each app is built for its prefix of the one
 * public origin (contract §1, rule 2): the proxy serves `dist/` at that prefix and answers
 * every other path below it with its index.html, so the page reads its state from the URL.
 */
export function frontendConfig(base: "/auth/" | "/console/") {
  return {
    base,
    appType: "spa" as const,
    build: {
      outDir: "dist",
      assetsDir: "assets",
      emptyOutDir: true,
      // Every asset becomes a file under <base>assets/: no data: URIs and nothing inline,
      // so the page runs under the provider's Content-Security-Policy unchanged.
      assetsInlineLimit: 0,
      // The module-preload polyfill is unneeded by the browsers we support.
      modulePreload: { polyfill: false },
      sourcemap: false,
    },
  };
}
