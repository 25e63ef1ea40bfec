/**
 * The dense master's helper thread (master-rows.ts): one message { memory, control, layout } (the master's shared
 * WebAssembly memory and control array), then it serves row-update jobs until the control's exit slot is set. After
 * each job it spins for a while (the next pivot's job usually comes within microseconds), then sleeps on the job
 * slot until a job is posted.
 */
import { parentPort } from 'node:worker_threads';
import type { WasmMemory } from '../../numeric/wasm';
import { CONTROL, type RowLayout, instantiateKernels, runChunks } from './master-rows';

/** Loads of the job slot before the helper sleeps (a few hundred microseconds). */
const SPINS = 100_000;

parentPort?.once('message', (msg: { memory: WasmMemory; control: Int32Array; layout: RowLayout }) => {
  const { control, layout } = msg;
  const k = instantiateKernels(msg.memory);
  let seen = Atomics.load(control, CONTROL.seq);
  Atomics.store(control, CONTROL.ready, 1);
  for (;;) {
    for (let i = 0; i < SPINS && Atomics.load(control, CONTROL.seq) === seen; i++);
    if (Atomics.load(control, CONTROL.seq) === seen) Atomics.wait(control, CONTROL.seq, seen);
    seen = Atomics.load(control, CONTROL.seq);
    if (Atomics.load(control, CONTROL.exit) !== 0) break;
    const ran = runChunks(control, k, layout, seen);
    if (ran > 0) Atomics.add(control, CONTROL.helped, ran);
  }
  Atomics.store(control, CONTROL.ready, 0);
});
