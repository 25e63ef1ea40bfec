/** Protocol inputs (domain, prior, loss, channel) -> engine values. */
import { MechError, invalid } from '../../src-shared/errors';
import { Matrix } from '../linalg/matrix';
import type { Domain } from '../metric/domain';
import { DenseChannel, validateChannel } from '../mechanism/channel';
import { uniformPrior, validatePrior } from '../measure/prior';
import type { ChannelPayload, DomainInput, LossInput, PriorInput } from '../../src-shared/protocol/index';
import { customDomain, graphDomain, parseDomain, type LossSpecInput } from './engine';
import { ADMISSION_LIMITS } from '../base/admission-limits';

/** `onProgress` hears from long validations (a custom metric's n^3 triangle check). */
export function resolveDomain(input: DomainInput, onProgress?: (fraction: number, message: string) => void): Domain {
  if (typeof input === 'string') return parseDomain(input, onProgress);
  if (input.kind === 'custom') {
    const n = input.labels.length;
    const m = new Matrix(n, n);
    input.distances.forEach((d, k) => (m.data[k] = d === null ? Infinity : d));
    return customDomain(m, input.labels, onProgress);
  }
  const n = input.labels.length;
  for (const e of input.edges) {
    if (e[0] >= n || e[1] >= n) invalid(`graph edge (${e[0]}, ${e[1]}) refers to a point beyond the ${n} labels`);
    if (e.length === 3 && e[2] !== 1)
      invalid('weighted graph edges are not supported yet: use a custom distance matrix');
  }
  return graphDomain(
    input.labels,
    input.edges.map((e) => [e[0], e[1]] as const),
  );
}

/** Short text for a domain input, used in results. */
export function domainText(input: DomainInput, domain?: Domain): string {
  if (domain) return domain.spec;
  return typeof input === 'string' ? input : `${input.kind} on ${input.labels.length} points`;
}

/**
 * Product prior (SPEC §8 product:p1,...): each of the u individuals
 * independently takes value k with probability p_k; index base v, coordinate
 * 0 most significant (DomainStructure.product).
 */
function productPrior(p: number[], domain: Domain): Float64Array {
  const prod = domain.structure.product;
  if (!prod) invalid(`a product prior needs a database domain (db:U,V), not ${domain.spec}`);
  const v = prod.factor.n;
  if (p.length !== v)
    invalid(`product prior has ${p.length} values but each individual takes ${v} values in ${domain.spec}`);
  const f = validatePrior(p, v, 'product prior');
  let cur = Float64Array.of(1);
  for (let k = 0; k < prod.power; k++) {
    const next = new Float64Array(cur.length * v);
    for (let i = 0; i < cur.length; i++) for (let j = 0; j < v; j++) next[i * v + j] = cur[i]! * f[j]!;
    cur = next;
  }
  if (cur.length !== domain.n)
    throw new MechError('internal', `product prior has ${cur.length} entries, domain ${domain.n}`);
  return cur;
}

export function resolvePrior(input: PriorInput | undefined, n: number, domain: Domain | null): Float64Array {
  if (input === undefined || input === 'uniform') return uniformPrior(n);
  if (input.kind === 'vector') return validatePrior(input.values, n);
  if (!domain) invalid('a product prior needs a database domain (db:U,V)');
  return productPrior(input.values, domain);
}

export function resolveLoss(input: LossInput): LossSpecInput {
  if (typeof input === 'string') return { kind: input };
  const max = ADMISSION_LIMITS.maxLossMagnitude;
  for (let k = 0; k < input.data.length; k++) {
    const v = input.data[k]!;
    if (!Number.isFinite(v) || Math.abs(v) > max) {
      invalid(
        `loss matrix entry (row ${Math.floor(k / input.cols) + 1}, column ${(k % input.cols) + 1}) is ${v}; losses must be finite with |loss| <= ${max.toExponential(0)} so that expected losses (sums of prior x channel x loss) stay finite: rescale the loss (only its ratios matter to the optimal mechanism)`,
        { row: Math.floor(k / input.cols), col: k % input.cols, limit: max },
      );
    }
    if (v < 0) {
      const row = Math.floor(k / input.cols);
      const col = k % input.cols;
      invalid(`loss matrix entry (row ${row + 1}, column ${col + 1}) is ${v}: a loss must be >= 0`, { row, col });
    }
  }
  const m = new Matrix(input.rows, input.cols, Float64Array.from(input.data));
  return input.rowLabels ? { kind: 'matrix', matrix: m, guessLabels: input.rowLabels } : { kind: 'matrix', matrix: m };
}

export function resolveChannel(c: ChannelPayload): DenseChannel {
  const ch = new DenseChannel(new Matrix(c.rows, c.cols, Float64Array.from(c.data)), c.rowLabels, c.colLabels);
  validateChannel(ch);
  return ch;
}

/** The domain's points must be the channel's secrets (same count, and same labels when both are labelled). */
export function assertChannelOnDomain(ch: DenseChannel, domain: Domain): void {
  if (ch.rows !== domain.n)
    invalid(`the channel has ${ch.rows} secret rows but the domain ${domain.spec} has ${domain.n} points`);
}
