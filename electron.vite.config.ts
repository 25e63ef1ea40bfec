import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { RENDERER_OUTPUT } from './src-main/web/renderer-chunks';

const ENGINE_THREADS = ['pricing-worker', 'check-worker', 'master-worker'];

// Source folders are not electron-vite's defaults, so every entry is explicit.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/electron/main.ts'),
          worker: resolve(__dirname, 'src-worker/worker-entry.ts'),
          // The engine's own worker threads: the pricing threads, the privacy check's threads and the master's helper.
          // The code that starts them looks for './pricing-worker.js', './check-worker.js' and './master-worker.js'
          // next to itself (base/worker-module.ts), and it lands in a shared chunk: these go to the chunks' folder
          // (test/integration/electron-bundle.test.ts).
          'pricing-worker': resolve(__dirname, 'src-worker/lp/pricing/pricing-worker.ts'),
          'check-worker': resolve(__dirname, 'src-worker/check/check-worker.ts'),
          'master-worker': resolve(__dirname, 'src-worker/lp/decomposition/master-worker.ts'),
        },
        output: {
          entryFileNames: (chunk: { name: string }) =>
            ENGINE_THREADS.includes(chunk.name) ? 'chunks/[name].js' : '[name].js',
        },
        external: ['highs', 'piscina', 'bullmq', 'ioredis'],
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-main/electron/preload.ts') },
        // A sandboxed preload cannot load ES modules or other files: one CommonJS bundle.
        output: { format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false } as Record<string, unknown>,
      },
    },
  },
  renderer: {
    root: 'src-renderer',
    base: './',
    plugins: [svelte()],
    build: {
      outDir: 'out/renderer',
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-renderer/index.html') },
        // split by library: one chunk was over Vite's 500 kB warning limit (src-main/web/renderer-chunks.ts)
        output: RENDERER_OUTPUT as Record<string, unknown>,
      },
    },
  },
});
