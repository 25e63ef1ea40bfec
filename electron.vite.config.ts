import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// Source folders are not electron-vite's defaults, so every entry is explicit.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/electron/main.ts'),
          worker: resolve(__dirname, 'src-worker/worker-entry.ts'),
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
      },
    },
  },
});
