import { MechError } from '../../src-shared/errors';
import { capacityNoteSchema, type CapacityNote } from '../../src-shared/protocol/index';
import { capacityNoteWords } from '../../src-shared/charts/note-words';
import type { Domain } from '../metric/domain';
import type { CapacityRow } from '../../src-shared/explorer/capacity-table';
import { enumerateKernelMechanisms, type KernelOptions } from './kernel-mechanisms';
import { privatePosteriorVertices } from './posterior-vertices';
import { EXPLORER_MAX_N } from './private-posterior-constraints';

/** An external capacity solver (e.g. the SPEC §6 LP) for rows the enumeration cannot reach. */
type CapacitySolver = (domain: Domain, eps: number) => { multiplicative: number; additive: number };

/**
 * One capacity-table row per domain (SPEC §6): vertex and kernel counts, and
 * the capacities from the kernel enumeration (exact LP optimum over basic
 * solutions). When the enumeration is refused ('too-large') the row keeps
 * what it has, says why in a typed note (the refusal's detail), and asks
 * `solver` (if given) for the capacities.
 */
export function capacityTableRows(
  domains: readonly Domain[],
  eps: number,
  options: { solver?: CapacitySolver; kernel?: Pick<KernelOptions, 'maxSubsets' | 'signal'> } = {},
): CapacityRow[] {
  return domains.map((domain) => {
    const row: CapacityRow = {
      domain: domain.spec,
      size: domain.n,
      vertices: null,
      kernels: null,
      multiplicative: null,
      additive: null,
      source: null,
    };
    try {
      if (domain.n > EXPLORER_MAX_N) {
        const note: CapacityNote = { kind: 'too-many-points', n: domain.n, limit: EXPLORER_MAX_N };
        throw new MechError('too-large', capacityNoteWords(note), note);
      }
      const pv = privatePosteriorVertices(domain, eps, options.kernel?.signal ? { signal: options.kernel.signal } : {});
      row.vertices = pv.count;
      const k = enumerateKernelMechanisms(pv, options.kernel ?? {});
      row.kernels = k.count;
      row.multiplicative = k.multiplicativeCapacity;
      row.additive = k.additiveCapacity;
      row.source = 'kernels';
    } catch (e) {
      if (!(e instanceof MechError) || e.code !== 'too-large') throw e;
      row.note = refusalNote(e);
      if (options.solver) {
        const c = options.solver(domain, eps);
        row.multiplicative = c.multiplicative;
        row.additive = c.additive;
        row.source = 'lp';
      }
    }
    return row;
  });
}

/** A 'too-large' refusal as a capacity note: its detail names the limit and the numbers, else its message. */
function refusalNote(e: MechError): CapacityNote {
  const note = capacityNoteSchema.safeParse(e.detail);
  return note.success ? note.data : { kind: 'refused', message: e.message };
}
