/**
 * How the page's bundle is split into chunks, for both builds of it (electron.vite.config.ts and
 * src-main/web/build-renderer.ts). As one chunk it measured 688 kB (229 kB gzipped), over Vite's 500 kB warning
 * limit; split by library it measured: charts (Chart.js and its matrix plug-in) 207 kB, zod 98 kB, svelte 45 kB,
 * the app itself 339 kB (vite 8.3, minified; electron-vite's unminified build: 1,457 kB as one chunk, the largest
 * 675 kB split). test/integration/renderer-chunks.test.ts keeps every chunk under the
 * limit, so a first build prints no chunk-size warning.
 */
export const RENDERER_OUTPUT = {
  codeSplitting: {
    groups: [
      { name: 'charts', test: /node_modules[\\/](chart\.js|chartjs-chart-matrix|@kurkle)[\\/]/ },
      { name: 'zod', test: /node_modules[\\/]zod[\\/]/ },
      { name: 'svelte', test: /node_modules[\\/]svelte[\\/]/ },
    ],
  },
};
