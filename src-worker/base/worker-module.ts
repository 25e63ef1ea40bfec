import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * A worker-thread module of the engine next to the module that starts it (`here`: its import.meta.url): the
 * TypeScript source run through tsx, or the bundled .js of the same name next to the worker bundle
 * (scripts/build-cli.mjs); null when neither exists (the caller then works on its own thread).
 */
export interface WorkerModule {
  url: URL;
  tsImport?: string;
}

/**
 * `source`: the module's TypeScript file, as `new URL('./name.ts', import.meta.url)` (so the house tests see the
 * import).
 */
export function workerModule(source: URL, here: string): WorkerModule | null {
  if (/\.ts$/.test(here)) {
    const url = source;
    if (!existsSync(fileURLToPath(url))) return null;
    try {
      // tsx's tsImport (registers its hooks for that import only): '--import tsx' in a worker's execArgv did not make
      // Node 20 load a .ts entry.
      const api = join(dirname(createRequire(here).resolve('tsx')), 'esm', 'api', 'index.mjs');
      if (!existsSync(api)) return null;
      return { url, tsImport: pathToFileURL(api).href };
    } catch {
      return null;
    }
  }
  const url = new URL(source.href.replace(/\.ts$/, '.js'));
  return existsSync(fileURLToPath(url)) ? { url } : null;
}

/** Start a thread running the module (`here`: the starting module's import.meta.url, for tsx's resolution). */
export function startWorker(mod: WorkerModule, here: string): Worker {
  if (!mod.tsImport) return new Worker(mod.url);
  const boot = `import(${JSON.stringify(mod.tsImport)}).then((a) => a.tsImport(${JSON.stringify(mod.url.href)}, ${JSON.stringify(here)}))`;
  return new Worker(boot, { eval: true });
}
