/**
 * Rows of a channel too large to hold in the page, fetched from the engine
 * on demand (the `rows` job) in chunks of consecutive rows and
 * kept in Float64Arrays; `version` changes when a chunk arrives so views
 * re-render. Used by the virtual table; at most MAX_CHUNKS are kept.
 */
import { type RowsResult, type JobRequest } from '../../src-shared/protocol/index';
import type { ChannelSource } from '../../src-shared/project/item-requests';
import type { TableSource } from './matrix-view';
import { messageOf } from '../../src-shared/errors';

type RowsRequest = Extract<JobRequest, { type: 'rows' }>;
const MAX_CHUNKS = 64;
/** Entries one fetch may carry (the job's own cap is 2e6). */
const FETCH_ENTRIES = 1_000_000;

export class RemoteRows implements TableSource {
  version = $state(0);
  error = $state<string | null>(null);
  readonly rows: number;
  readonly cols: number;
  private readonly chunk: number;
  private readonly chunks = new Map<number, { data: Float64Array[]; labels: string[] } | 'loading'>();
  private colLabels: string[] | null = null;

  constructor(
    private readonly fetch: (r: RowsRequest) => Promise<RowsResult>,
    private readonly source: ChannelSource,
    rows: number,
    cols: number,
  ) {
    this.rows = rows;
    this.cols = cols;
    this.chunk = Math.max(1, Math.min(50, Math.floor(FETCH_ENTRIES / Math.max(1, cols))));
  }

  value(r: number, c: number): number | undefined {
    const ch = this.chunks.get(Math.floor(r / this.chunk));
    return ch && ch !== 'loading' ? ch.data[r % this.chunk]?.[c] : undefined;
  }

  rowLabel(r: number): string {
    const ch = this.chunks.get(Math.floor(r / this.chunk));
    return ch && ch !== 'loading' ? (ch.labels[r % this.chunk] ?? String(r)) : String(r);
  }

  colLabel(c: number): string {
    return this.colLabels?.[c] ?? String(c);
  }

  ensure(r0: number, r1: number): void {
    for (let k = Math.floor(r0 / this.chunk); k <= Math.floor(Math.max(r0, r1 - 1) / this.chunk); k++) {
      if (this.chunks.has(k) || k * this.chunk >= this.rows) continue;
      this.chunks.set(k, 'loading');
      const idx: number[] = [];
      for (let i = k * this.chunk; i < Math.min(this.rows, (k + 1) * this.chunk); i++) idx.push(i);
      this.fetch({ type: 'rows', ...this.source, rows: idx }).then(
        (res) => {
          this.chunks.set(k, {
            data: (res.data ?? []).map((row) => Float64Array.from(row)),
            labels: res.rowLabels ?? [],
          });
          this.colLabels ??= res.colLabels ?? null;
          while (this.chunks.size > MAX_CHUNKS) this.chunks.delete(this.chunks.keys().next().value!);
          this.version++;
        },
        (e: unknown) => {
          this.chunks.delete(k);
          this.error = messageOf(e);
        },
      );
    }
  }
}
