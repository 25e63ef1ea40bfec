import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { once } from 'node:events';
import { MechError } from '../../src-shared/errors';

/**
 * A file written all or nothing: the text goes to PATH.partial (a stale one
 * is removed first, then it is created exclusively, 'wx'), flushed to disk
 * before its descriptor closes; the caller renames it to PATH only when it is
 * complete, and after a failure discards it. The channel-CSV export and the
 * release of a secrets CSV write through it.
 */
interface PartialFile {
  /** PATH.partial, to rename to PATH once closed. */
  readonly tmp: string;
  /** Write text, waiting for 'drain' when the buffer is full; a failed stream rejects with a MechError. */
  write(text: string): Promise<void>;
  /** End the stream and wait until the data is on disk and the descriptor closed; the bytes written. */
  close(): Promise<number>;
  /**
   * After a failure: wait until the descriptor is closed (the open may still be pending), then drop the partial file.
   */
  discard(): Promise<void>;
}

export async function openPartialFile(path: string): Promise<PartialFile> {
  const tmp = `${path}.partial`;
  await unlink(tmp).catch(() => undefined);
  // A 4 MB buffer lets the disk write of one chunk overlap formatting the next.
  const out = createWriteStream(tmp, { encoding: 'utf8', flags: 'wx', flush: true, highWaterMark: 1 << 22 });
  const failed = new Promise<never>((_, reject) => {
    out.once('error', (e) => reject(new MechError('invalid-input', `cannot write ${path}: ${e.message}`)));
  });
  failed.catch(() => undefined);
  return {
    tmp,
    write: async (text) => {
      if (!out.write(text)) await Promise.race([once(out, 'drain'), failed]);
    },
    close: async () => {
      out.end();
      await Promise.race([once(out, 'close'), failed]);
      return out.bytesWritten;
    },
    discard: async () => {
      if (!out.closed) {
        const closed = once(out, 'close').catch(() => undefined);
        out.destroy();
        await closed;
      }
      await unlink(tmp).catch(() => undefined);
    },
  };
}
