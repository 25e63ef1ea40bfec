/** A mechanism's construction facts in words: every key of every protocol shape has a label (no key=value on a card). */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mechanismInfoSchema } from '../../../../src-shared/protocol/results';
import { FACT_LABELS, factRows } from '../../../../src-shared/charts/fact-rows';

describe('construction facts', () => {
  it('every key of every shape of mechanismInfoSchema has a label', () => {
    const keys = new Set<string>();
    for (const o of mechanismInfoSchema.options) for (const k of Object.keys((o as z.ZodObject).shape)) keys.add(k);
    expect(keys.size).toBeGreaterThan(80);
    const missing = [...keys].filter((k) => !(k in FACT_LABELS));
    expect(missing).toEqual([]);
  });

  it('rows: labels, numbers through the formatter, yes/no, an unknown key in words', () => {
    expect(factRows({ minZ: -0.0553, implicit: true, solver: 'CG', someOldKey: 3 }, (v) => v.toFixed(2))).toEqual([
      { key: 'minZ', label: 'smallest output weight z (negative: the mechanism does not exist)', value: '-0.06' },
      { key: 'implicit', label: 'held implicitly (no full matrix)', value: 'yes' },
      { key: 'solver', label: 'linear solver', value: 'CG' },
      { key: 'someOldKey', label: 'some old key', value: '3.00' },
    ]);
  });
});
