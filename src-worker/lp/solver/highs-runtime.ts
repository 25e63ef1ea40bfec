import loadHighs from 'highs';
import type { Highs } from 'highs';
import { MechError, messageOf } from '../../../src-shared/errors';

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
      throw new MechError('internal', `could not load the HiGHS LP solver: ${messageOf(e)}`);
    });
  }
  return runtime;
}

/** Forget the cached runtime (after a WebAssembly abort left it unusable). */
export function resetHighsRuntime(): void {
  runtime = undefined;
}

/**
 * The runtime's WebAssembly memory never shrinks. After a job, a worker calls
 * this: when the heap has grown past `limitBytes` the cached runtime is
 * dropped, so its memory is garbage once no model refers to it and the next
 * LP loads a fresh (small) runtime. Idle threads are also recycled by the pool.
 */
export async function releaseHighsRuntimeIfLarge(limitBytes = 256 * 2 ** 20): Promise<boolean> {
  if (!runtime) return false;
  try {
    const r = await runtime;
    if (r.memoryBytes > limitBytes) {
      runtime = undefined;
      return true;
    }
  } catch {
    runtime = undefined;
  }
  return false;
}
