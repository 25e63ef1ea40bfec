import loadHighs from 'highs';
import type { Highs } from 'highs';
import { MechError } from '../errors';

/**
 * The HiGHS WebAssembly runtime, loaded once per thread (worker) and reused:
 * instantiating the 3.5 MB module costs ~40 ms, and its linear memory (capped
 * at 2 GiB) only grows, so one runtime per thread keeps the footprint honest.
 * The promise is cached lazily; a failed load is not cached so a later call
 * can retry.
 */
let runtime: Promise<Highs> | undefined;

export function highsRuntime(): Promise<Highs> {
  if (!runtime) {
    runtime = loadHighs().catch((e: unknown) => {
      runtime = undefined;
      throw new MechError('internal', `could not load the HiGHS LP solver: ${e instanceof Error ? e.message : String(e)}`);
    });
  }
  return runtime;
}

/** Forget the cached runtime (after a WebAssembly abort left it unusable). */
export function resetHighsRuntime(): void {
  runtime = undefined;
}
