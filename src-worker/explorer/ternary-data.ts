import { MechError } from '../../src-shared/errors';
import type { RowSource } from '../mechanism/channel';
import { phiMatrix, type Domain } from '../metric/domain';
import { kernelChannel } from './kernel-channel';
import { enumerateKernelMechanisms } from './kernel-mechanisms';
import { privatePosteriorVertices, vertexOf } from './posterior-vertices';
import { buildTernaryView, type TernaryView } from './ternary';

/**
 * The simplex view's data for a 3-point domain (SPEC §6): private region,
 * corner priors, regular-prior region, uniform prior, and the posteriors of
 * the kernel mechanisms (the one attaining the multiplicative capacity first)
 * or of a given channel. Serialisable: the worker sends it to the renderer.
 */
export function ternaryViewForDomain(
  domain: Domain,
  eps: number,
  options: { channel?: RowSource; channelName?: string; prior?: readonly number[] } = {},
): TernaryView {
  if (domain.n !== 3)
    throw new MechError(
      'invalid-input',
      `the simplex view needs a domain of exactly 3 points; ${domain.spec} has ${domain.n}`,
    );
  const pv = privatePosteriorVertices(domain, eps);
  const phi = phiMatrix(domain, eps);
  const labels = [domain.label(0), domain.label(1), domain.label(2)];
  const mechanisms: { name: string; channel: number[][]; colLabels?: string[] }[] = [];
  if (options.channel) {
    const ch = options.channel;
    if (ch.rows !== 3)
      throw new MechError('invalid-input', `the simplex view needs a channel with 3 rows, got ${ch.rows}`);
    const buf = new Float64Array(ch.cols);
    const rows = [0, 1, 2].map((x) => Array.from(ch.row(x, buf)));
    mechanisms.push({
      name: options.channelName ?? 'mechanism',
      channel: rows,
      colLabels: Array.from({ length: ch.cols }, (_, j) => ch.colLabel(j)),
    });
  } else {
    const ke = enumerateKernelMechanisms(pv, { collect: true });
    const list = [...ke.mechanisms!];
    const best = ke.bestMultiplicative;
    if (best) {
      const i = list.findIndex(
        (k) => k.vertices.length === best.vertices.length && k.vertices.every((v, j) => v === best.vertices[j]),
      );
      if (i > 0) list.unshift(...list.splice(i, 1));
    }
    list.forEach((k, i) => {
      const ch = kernelChannel(pv, k, domain);
      const rows = [0, 1, 2].map((x) => Array.from(ch.matrix.row(x)));
      const tag = best && i === 0 ? ' (multiplicative capacity)' : '';
      mechanisms.push({
        name: `kernel ${i + 1}: v${Array.from(k.vertices).join(', v')}${tag}`,
        channel: rows,
        colLabels: ch.colLabels,
      });
    });
  }
  return buildTernaryView({
    labels,
    eps,
    vertices: Array.from({ length: pv.count }, (_, i) => Array.from(vertexOf(pv, i))),
    phi: [0, 1, 2].map((x) => Array.from(phi.row(x))),
    mechanisms,
    ...(options.prior ? { prior: options.prior } : {}),
  });
}
