import type { ImplicitTightChannel } from '../../mechanism/implicit/implicit-tight-channel';
import type { Measures } from '../channel-measures';
import { priorForChannel } from '../prior-for-channel';
import { eccentricities } from './eccentricity';
import { tightUtility } from './tight-utility';
import type { MinPlusOptions } from './min-plus-transform';

/**
 * The SPEC §3 summary measures of a tight-constraints mechanism
 * C[x][y] = Phi[x][y] z[y] from z and the metric, never from n^2 entries
 * (same fields as the job engine's measureChannel, so a caller can switch
 * on `channel instanceof ImplicitTightChannel`):
 *  - V(pi) = max pi; V[pi > C] = utility with optimal remap (tight-utility.ts);
 *    leakage log2(V[pi > C] / V(pi));
 *  - multiplicative capacity sum_y max_x C[x][y] = sum_y z[y] (Phi[y][y] = 1
 *    is the column maximum); min-capacity log2 of it;
 *  - additive capacity 1 - sum_y min_x C[x][y] = 1 - sum_y z[y] exp(-eps ecc(y)).
 */
export interface TightMeasures extends Measures {
  /** How the column maxima and minima were found. */
  methods: { utility: string; eccentricity: string };
}

export function tightChannelMeasures(
  pi: ArrayLike<number>,
  channel: ImplicitTightChannel,
  opts: MinPlusOptions = {},
): TightMeasures {
  const p = priorForChannel(pi, channel);
  let vmax = 0;
  for (let i = 0; i < p.length; i++) if (p[i]! > vmax) vmax = p[i]!;
  const u = tightUtility(p, channel, opts);
  const z = channel.z;
  const eps = channel.eps;
  const { ecc, method } = eccentricities(channel.domain, opts.onProgress);
  let mult = 0;
  let colMin = 0;
  for (let y = 0; y < z.length; y++) {
    mult += z[y]!;
    colMin += z[y]! * Math.exp(-eps * ecc[y]!);
  }
  return {
    vulnerability: vmax,
    posteriorVulnerability: u.value,
    leakage: Math.log2(u.value / vmax),
    utility: u.value,
    remap: u.remap,
    multiplicativeCapacity: mult,
    additiveCapacity: 1 - colMin,
    minCapacity: Math.log2(mult),
    methods: { utility: u.method, eccentricity: method },
  };
}
