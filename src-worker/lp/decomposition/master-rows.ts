/**
 * The dense master's kernels (dense-kernels.wat) and its row updates on two threads. A pivot of the dense simplex
 * (dense-simplex.ts) updates every row of the n x n basis inverse (fused with the next FTRAN): n^2 multiply-adds
 * over 8 n^2 bytes, nearly all of the master's time on large grids (a CPU profile of the 50 x 50 master's thread:
 * 87.8 s in these updates, its start basis included, against 4.7 s of pricing inner products). The rows are
 * independent, so a second thread updates some of them in the same WebAssembly memory (shared): the rows are cut
 * into CHUNKS chunks that either thread claims
 * with one compare-and-swap, so a helper that is late, asleep or gone costs nothing but its share (this thread
 * claims what is left), and a chunk is never done twice. The helper is a worker thread (master-worker.ts) that
 * spins for a while after each job, then sleeps until the next one is posted. The inner products of a pricing
 * block's columns (the other half of the master's time at 900 rows) are shared the same way.
 */
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { MechError } from '../../../src-shared/errors';
import { startWorker, workerModule } from '../../base/worker-module';
import { Wasm, type WasmMemory } from '../../numeric/wasm';
import { DENSE_KERNELS_WASM } from './dense-kernels.wasm';

/** The kernels of dense-kernels.wat (pointers are byte offsets into the memory). */
export interface Kernels {
  dot(a: number, b: number, n: number): number;
  ftran(binv: number, a: number, alpha: number, n: number): void;
  updateRows(binv: number, alpha: number, n: number, p: number, a: number, hasA: number, i0: number, i1: number): void;
  dots(y: number, list: number, out: number, n: number, k0: number, k1: number): void;
}

let compiled: object | undefined;

/** The kernels' module, compiled once per thread (a few hundred bytes: synchronous compilation is fine). */
function kernelsModule(): object {
  compiled ??= new Wasm.Module(Buffer.from(DENSE_KERNELS_WASM, 'base64'));
  return compiled;
}

/** The kernels on `memory` (shared, imported by the module). */
export function instantiateKernels(memory: WasmMemory): Kernels {
  return new Wasm.Instance(kernelsModule(), { env: { memory } }).exports as unknown as Kernels;
}

/**
 * Rows from which the master has a helper thread. Measured: updateRows alone, one thread against two (spinning
 * helper), 400 rows 1.02x, 625 1.82x, 900 1.50x, 1,600 2.08x, 2,500 1.98x; whole solves to 1e-6 with the pricing
 * scans shared too, one helper against none: 15 x 15 (225 rows) master 2.4 s against 2.3 s, the 20 x 20 city at eps
 * 0.5 (400 rows) 16.9 s against 26.4 s (docs/lp-measurements.md, "The master").
 */
const MASTER_THREAD_MIN_ROWS = 400;
/** Chunks of a job (rows of an update, columns of a block's inner products), claimed one at a time by either thread. */
const CHUNKS = 8;
/** Inner products of a block below which it stays on this thread (entries read: count x n). */
const DOTS_MIN_WORK = 1 << 16;
/** Job tags wrap at this mask (a chunk counter holds tag * 64 + chunk). */
const TAG_MASK = 0xffffff;
/**
 * Milliseconds this thread waits for a chunk the helper claimed before it calls the helper gone (a chunk is about a
 * millisecond of work at 2,500 rows).
 */
const HELPER_TIMEOUT_MS = 60_000;

/** Slots of the control array shared with the helper. */
export const CONTROL = {
  /** The job posted last (its tag). */
  seq: 0,
  /** tag * 64 + the next chunk to claim. */
  next: 1,
  /** Chunks of the current job done. */
  done: 2,
  /** The job: JOB_UPDATE (arguments p, a, hasA) or JOB_DOTS (list, out, count). */
  kind: 3,
  arg0: 4,
  arg1: 5,
  arg2: 6,
  /** Non-zero: the helper leaves. */
  exit: 7,
  /** 1 while the helper serves jobs. */
  ready: 8,
  /** Chunks the helper has done in all (for tests and measurements). */
  helped: 9,
  slots: 10,
} as const;

const JOB_UPDATE = 0;
const JOB_DOTS = 1;

/** What both threads need: sizes and byte offsets in the shared memory (the inverse is at byte 0). */
export interface RowLayout {
  n: number;
  /** The FTRAN column alpha, and the duals y. */
  alphaAt: number;
  yAt: number;
}

/**
 * Claim and run chunks of the job with this tag until none is left (or a later job has been posted); the number of
 * chunks run. The job's parameters are read before the tag is checked, so a thread that read a later job's
 * parameters sees that job's tag and runs nothing of the earlier one.
 */
export function runChunks(control: Int32Array, k: Kernels, layout: RowLayout, tag: number): number {
  const kind = Atomics.load(control, CONTROL.kind);
  const a0 = Atomics.load(control, CONTROL.arg0);
  const a1 = Atomics.load(control, CONTROL.arg1);
  const a2 = Atomics.load(control, CONTROL.arg2);
  const { n, alphaAt, yAt } = layout;
  const total = kind === JOB_DOTS ? a2 : n;
  const size = Math.ceil(total / CHUNKS);
  let ran = 0;
  for (;;) {
    const v = Atomics.load(control, CONTROL.next);
    const c = v & 63;
    if (v >>> 6 !== tag || c >= CHUNKS) return ran;
    if (Atomics.compareExchange(control, CONTROL.next, v, v + 1) !== v) continue;
    const i0 = Math.min(total, c * size);
    const i1 = Math.min(total, (c + 1) * size);
    if (kind === JOB_DOTS) k.dots(yAt, a0, a1, n, i0, i1);
    else k.updateRows(0, alphaAt, n, a0, a1, a2, i0, i1);
    ran++;
    Atomics.add(control, CONTROL.done, 1);
    Atomics.notify(control, CONTROL.done);
  }
}

/**
 * The master's row updates: on this thread alone, or shared with a helper thread from MASTER_THREAD_MIN_ROWS rows on
 * (when the machine has a second core and the helper's module is there; `threads` 1 or 2 forces the choice).
 */
export class MasterRows {
  private readonly control = new Int32Array(new SharedArrayBuffer(CONTROL.slots * 4));
  private worker: Worker | null = null;
  private broken = false;
  private tag = 0;

  constructor(
    private readonly k: Kernels,
    memory: WasmMemory,
    private readonly layout: RowLayout,
    threads?: number,
  ) {
    const two = threads === undefined ? layout.n >= MASTER_THREAD_MIN_ROWS && availableParallelism() > 1 : threads > 1;
    const mod = two ? workerModule(new URL('./master-worker.ts', import.meta.url), import.meta.url) : null;
    if (!mod) return;
    try {
      const w = startWorker(mod, import.meta.url);
      w.on('error', () => (this.broken = true));
      w.on('exit', () => (this.broken = true));
      w.unref();
      w.postMessage({ memory, control: this.control, layout });
      this.worker = w;
    } catch {
      this.worker = null;
    }
  }

  /** Resolves true once the helper serves jobs (false when there is none). */
  async helperReady(): Promise<boolean> {
    while (this.worker && !this.broken && Atomics.load(this.control, CONTROL.ready) !== 1)
      await new Promise((r) => setTimeout(r, 5));
    return this.worker !== null && !this.broken;
  }

  /** Chunks the helper has run so far. */
  get helped(): number {
    return Atomics.load(this.control, CONTROL.helped);
  }

  private get shared(): boolean {
    return this.worker !== null && !this.broken && Atomics.load(this.control, CONTROL.ready) === 1;
  }

  /** updateRows over every row (see dense-kernels.wat), shared with the helper when it is there. */
  update(p: number, a: number, hasA: number): void {
    const { k, layout } = this;
    if (!this.shared) k.updateRows(0, layout.alphaAt, layout.n, p, a, hasA, 0, layout.n);
    else this.post(JOB_UPDATE, p, a, hasA);
  }

  /** out[k] = y . a_k for the count columns at the byte offsets list[k] (dots in dense-kernels.wat). */
  dots(list: number, out: number, count: number): void {
    const { k, layout } = this;
    if (!this.shared || count * layout.n < DOTS_MIN_WORK) k.dots(layout.yAt, list, out, layout.n, 0, count);
    else this.post(JOB_DOTS, list, out, count);
  }

  /** Post a job, run chunks of it here, and wait for the helper's. */
  private post(kind: number, a0: number, a1: number, a2: number): void {
    const { control: c, k, layout } = this;
    const tag = (this.tag = (this.tag + 1) & TAG_MASK);
    Atomics.store(c, CONTROL.next, tag * 64);
    Atomics.store(c, CONTROL.done, 0);
    Atomics.store(c, CONTROL.kind, kind);
    Atomics.store(c, CONTROL.arg0, a0);
    Atomics.store(c, CONTROL.arg1, a1);
    Atomics.store(c, CONTROL.arg2, a2);
    Atomics.store(c, CONTROL.seq, tag);
    Atomics.notify(c, CONTROL.seq);
    runChunks(c, k, layout, tag);
    this.awaitChunks();
  }

  /** Until every chunk of the job is done (the helper's claimed ones); the helper is called gone after a timeout. */
  private awaitChunks(): void {
    const c = this.control;
    let spins = 0;
    let since = 0;
    for (;;) {
      const d = Atomics.load(c, CONTROL.done);
      if (d >= CHUNKS) return;
      if (++spins < 4096) continue;
      since ||= performance.now();
      Atomics.wait(c, CONTROL.done, d, 1);
      if (performance.now() - since > HELPER_TIMEOUT_MS) {
        this.broken = true;
        this.close();
        throw new MechError('internal', 'the master helper thread stopped answering mid-update');
      }
    }
  }

  /** Stop the helper (idempotent). */
  close(): void {
    const w = this.worker;
    if (!w) return;
    this.worker = null;
    Atomics.store(this.control, CONTROL.exit, 1);
    Atomics.add(this.control, CONTROL.seq, 1);
    Atomics.notify(this.control, CONTROL.seq);
    void w.terminate();
  }
}
