import { describe, expect, it } from 'vitest';
import {
  chooseLpStrategy,
  DECOMPOSITION_MIN_VARIABLES,
  GENERATION_ROW_THRESHOLD,
  type LpStrategyInput,
} from '../../../../../src-worker/lp/channel/lp-strategy';
import { privateChannelLpSize } from '../../../../../src-worker/lp/model/channel-model';
import { estimateLpBytes } from '../../../../../src-worker/lp/solver/memory-estimate';

/** A sparse-graph problem of n secrets and n outputs with 2n pairs (a spanner's order of size). */
const sparse = (n: number, over: Partial<LpStrategyInput> = {}): LpStrategyInput => ({
  n,
  m: n,
  mode: 'spanner',
  generation: 'auto',
  decomposition: 'auto',
  sense: 'minimize',
  orbits: false,
  pairs: 2 * n,
  ...over,
});

describe('chooseLpStrategy: the solution method from sizes and switches alone', () => {
  it('forces: decomposition on wins over generation on; either drops the orbit reduction', () => {
    expect(chooseLpStrategy(sparse(10, { decomposition: 'on', generation: 'on', orbits: true }))).toEqual({
      method: 'decomposition',
      orbits: false,
    });
    expect(chooseLpStrategy(sparse(10, { generation: 'on', orbits: true }))).toEqual({
      method: 'constraint-generation',
      orbits: false,
    });
    expect(chooseLpStrategy(sparse(10, { generation: 'off', decomposition: 'off', orbits: true }))).toEqual({
      method: 'full-model',
      orbits: true,
    });
  });

  it('whole graphs: constraint generation exactly above GENERATION_ROW_THRESHOLD all-pairs rows, unless symmetric', () => {
    // smallest n whose all-pairs model (n outputs) has more rows than the threshold, by brute force
    let n = 2;
    while (privateChannelLpSize(n, n, (n * (n - 1)) / 2).rows <= GENERATION_ROW_THRESHOLD) n++;
    expect(chooseLpStrategy(sparse(n - 1, { mode: 'exact' })).method).toBe('full-model');
    expect(chooseLpStrategy(sparse(n, { mode: 'exact' })).method).toBe('constraint-generation');
    expect(chooseLpStrategy(sparse(n, { mode: 'all-pairs' })).method).toBe('constraint-generation');
    expect(chooseLpStrategy(sparse(n, { mode: 'exact', orbits: true }))).toEqual({
      method: 'full-model',
      orbits: true,
    });
    expect(chooseLpStrategy(sparse(n, { mode: 'exact', generation: 'off' })).method).toBe('full-model');
    // whole graphs never decompose on 'auto', whatever their size
    expect(chooseLpStrategy(sparse(400, { mode: 'exact', generation: 'off' })).method).toBe('full-model');
  });

  it('sparse graphs: decomposition from DECOMPOSITION_MIN_VARIABLES variables when minimising', () => {
    const k = Math.ceil(Math.sqrt(DECOMPOSITION_MIN_VARIABLES));
    expect(chooseLpStrategy(sparse(k - 1)).method).toBe('full-model');
    expect(chooseLpStrategy(sparse(k)).method).toBe('decomposition');
    expect(chooseLpStrategy(sparse(k, { sense: 'maximize' })).method).toBe('full-model');
    expect(chooseLpStrategy(sparse(k, { orbits: true }))).toEqual({ method: 'full-model', orbits: true });
  });

  it('sparse graphs that do not fit the solver heap: decomposition, else generation, else the full model (refused later)', () => {
    const p = sparse(20, { sense: 'maximize' });
    const size = privateChannelLpSize(20, 20, p.pairs);
    const bytes = estimateLpBytes(size.variables, size.rows, size.nonzeros);
    expect(chooseLpStrategy({ ...p, memoryLimit: bytes }).method).toBe('full-model');
    expect(chooseLpStrategy({ ...p, memoryLimit: bytes - 1 }).method).toBe('decomposition');
    expect(chooseLpStrategy({ ...p, memoryLimit: bytes - 1, decomposition: 'off' }).method).toBe(
      'constraint-generation',
    );
    expect(chooseLpStrategy({ ...p, memoryLimit: bytes - 1, decomposition: 'off', generation: 'off' }).method).toBe(
      'full-model',
    );
  });
});
