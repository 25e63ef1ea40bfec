/**
 * The `rows` job: part of a mechanism's channel for a view, built
 * in the engine from the mechanism's construction, so the page never holds
 * an n x n matrix: listed secret rows (a grid view of one cell, the visible
 * window of a table) or the block means of the whole channel (a heat map).
 * The last constructions are kept per worker thread, so scrolling a table
 * does not rebuild the mechanism for every window.
 */
import { MechError } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import { type MechanismSpec, type RowsRequest, type RowsResult } from '../../src-shared/protocol/index';
import { checkCancelled, type JobContext } from './context';
import { rowsOf } from './rows-view';
import { construct, denseOf, doesNotExist } from './handlers';
import type { JobAdmission } from './admission';

/** Constructions kept per worker thread (most recent last). */
const CACHE_SIZE = 2;
const cache: { key: string; channel: RowSource }[] = [];

async function channelOf(admission: JobAdmission, spec: MechanismSpec, ctx: JobContext): Promise<RowSource> {
  if (spec.kind === 'optimal') {
    throw new MechError(
      'not-applicable',
      'rows of an optimal (LP) mechanism are not rebuilt from its construction (that would solve the LP again); use the channel its mechanism job returned',
    );
  }
  const key = JSON.stringify(spec);
  const hit = cache.findIndex((c) => c.key === key);
  if (hit >= 0) {
    const [c] = cache.splice(hit, 1);
    cache.push(c!);
    return c!.channel;
  }
  const built = await construct(admission, spec, ctx);
  if (!built.outcome.exists) throw doesNotExist(spec, built.outcome);
  const channel = built.outcome.mechanism.channel;
  cache.push({ key, channel });
  if (cache.length > CACHE_SIZE) cache.shift();
  return channel;
}

/** Forget the kept constructions (tests). */
export function clearRowsCache(): void {
  cache.length = 0;
}

export async function rowsJob(req: RowsRequest, ctx: JobContext, admission: JobAdmission): Promise<RowsResult> {
  const ch = req.mechanism ? await channelOf(admission, req.mechanism, ctx) : denseOf(req, ctx);
  checkCancelled(ctx.signal);
  return rowsOf(ch, req, ctx);
}
