/**
 * The privacy check a release passes first (apply with a channel: a matrix,
 * a channel CSV, a kept channel read back from a project, a bundle or the
 * app's cache). Nothing about such a channel is believed from where it came
 * from: its rows are checked (finite, non-negative, summing to 1), then the
 * engine's privacy check (SPEC §4, checkChannel) runs on the doubles that
 * will be sampled, and the release is refused unless it passes.
 *
 * - With a domain and eps (the eps the release is made under: the project's
 *   mechanism, `mechstudio apply --epsilon`): refused unless the channel is
 *   eps*d-private on the domain.
 * - With a domain and no eps: released under its effective eps, refused when
 *   that is infinite (a positive entry facing a zero: private at no eps).
 * - Without a domain (the secrets are the channel's row labels, no
 *   distances): refused when private at no eps under any metric, i.e. when a
 *   column has a positive entry facing a zero (checked as the discrete metric
 *   on the labels, where finite effective eps means exactly that).
 *
 * A check over its work budget refuses the release (a verdict is never
 * assumed): the message says so.
 */
import { MechError } from '../../src-shared/errors';
import { ADMISSION_LIMITS } from '../base/admission-limits';
import { validateChannel, type RowSource } from '../mechanism/channel';
import type { Domain } from '../metric/domain';
import { cliqueDomain } from '../metric/clique';
import { checkChannel } from './engine';
import type { JobContext } from './context';

/** What the release was checked at: the eps asked (or null) and the channel's effective eps. */
export interface ReleaseCheck {
  epsilon: number | null;
  effectiveEpsilon: number;
}

const fmt = (x: number): string => (Number.isFinite(x) ? String(Number(x.toPrecision(6))) : 'infinite');

/**
 * Refuse (MechError) a channel that is not private at `eps` on `domain` (see the file comment); what it passed at
 * otherwise.
 */
export async function assertReleasable(
  ch: RowSource,
  domain: Domain | null,
  eps: number | undefined,
  ctx: JobContext,
): Promise<ReleaseCheck> {
  validateChannel(ch, 'apply: the channel');
  if (domain === null && eps !== undefined)
    throw new MechError(
      'invalid-input',
      'apply: an eps to release under needs the domain of the secrets (the distances eps is about)',
    );
  const on =
    domain ??
    cliqueDomain(
      ch.rows,
      Array.from({ length: ch.rows }, (_, i) => ch.rowLabel(i)),
    );
  const progress = { signal: ctx.signal, progress: (_f: number, m: string) => ctx.progress(null, m) };
  let r: Awaited<ReturnType<typeof checkChannel>>;
  try {
    r = await checkChannel(
      ch,
      on,
      eps ?? 1,
      1,
      ADMISSION_LIMITS.maxCheckWork,
      progress,
      ADMISSION_LIMITS.maxScanCheckWork,
    );
  } catch (e) {
    if (e instanceof MechError && e.code === 'too-large')
      throw new MechError(
        'too-large',
        `apply: the channel is not released: its privacy check is over the work limit (${e.message})`,
      );
    throw e;
  }
  const w = r.worst[0];
  const worst = w ? ` (secrets ${w.x} and ${w.xp}, output ${w.y})` : '';
  if (eps !== undefined && !r.passes)
    throw new MechError(
      'invalid-input',
      `apply: the channel is not ${fmt(eps)}*d-private on ${on.spec}: its effective eps is ${fmt(r.effectiveEpsilon)}${worst}; it is not released`,
    );
  if (eps === undefined && !Number.isFinite(r.effectiveEpsilon))
    throw new MechError(
      'invalid-input',
      `apply: the channel is private at no eps: a positive entry faces a zero in the same output${worst}; it is not released`,
    );
  return { epsilon: eps ?? null, effectiveEpsilon: r.effectiveEpsilon };
}
