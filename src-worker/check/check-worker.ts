/**
 * Worker thread of the all-pairs privacy check (scan-threads.ts): one message
 * { shared: ScanShared } (its arrays on SharedArrayBuffers), one reply
 * { type: 'part', part: ScanPart } or { type: 'error', message }, then the
 * thread is done. Rows are taken from the shared counter (log-ratio-scan.ts).
 */
import { parentPort } from 'node:worker_threads';
import { type ScanShared, scanRows } from './log-ratio-scan';
import { messageOf } from '../../src-shared/errors';

parentPort?.once('message', (msg: { shared: ScanShared }) => {
  try {
    const part = scanRows(msg.shared);
    parentPort!.postMessage({ type: 'part', part }, [
      part.top.buffer as ArrayBuffer,
      part.uncertain.buffer as ArrayBuffer,
    ]);
  } catch (e) {
    parentPort!.postMessage({ type: 'error', message: messageOf(e) });
  }
});
