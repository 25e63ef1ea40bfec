/**
 * One domain grammar (src-shared/grammar/domain-spec.ts): every form it
 * lists parses, writes back canonically, and the engine (metric/
 * parse-domain-spec.ts, builds the domain), the admission estimate and the
 * renderer's editors (editors/domain-spec.ts) agree on every example, on the
 * number of points and on what they refuse. The CLI help, docs/cli.md and
 * docs/cli-and-formats.md list every form.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  DOMAIN_FORMS,
  DOMAIN_SPEC_FORMS,
  domainSpecSize,
  domainSpecText,
  parseDomainSpecText,
} from '../../../../src-shared/grammar/domain-spec';
import { parseDomainSpec, type TextReader } from '../../../../src-worker/metric/parse-domain-spec';
import { sizeOfParsedSpec } from '../../../../src-worker/jobs/domain-size';
import { domainSize, parseDomainText } from '../../../../src-renderer/editors/domain-spec';
import { MechError } from '../../../../src-shared/errors';
import { USAGE } from '../../../../src-main/cli/main';

const ROOT = join(__dirname, '../../../..');

/** Files for the graph:/csv: examples: a 3-node path and a 3-point metric. */
const FILES: Record<string, string> = {
  'edges.csv': 'p,q\nq,r\n',
  'distances.csv': ',x,y,z\nx,0,1,2\ny,1,0,1\nz,2,1,0\n',
};
const reader: TextReader = { readText: (p) => FILES[p] ?? '' };

const parsed = (text: string) => {
  const r = parseDomainSpecText(text);
  if (!r.ok) throw new Error(r.error);
  return r.spec;
};

describe('the domain grammar', () => {
  it('lists each kind once, and every example parses to its kind and writes back canonically', () => {
    expect(new Set(DOMAIN_FORMS.map((f) => f.kind)).size).toBe(DOMAIN_FORMS.length);
    expect(DOMAIN_FORMS.map((f) => f.kind).sort()).toEqual([
      'argmax',
      'avg',
      'clique',
      'count',
      'csv',
      'db',
      'graph',
      'grid',
      'hamming',
      'kcount',
      'line',
      'max',
      'min',
      'percentile',
      'ring',
      'sum',
    ]);
    for (const f of DOMAIN_FORMS) {
      const spec = parsed(f.example);
      expect(spec.kind, f.example).toBe(f.kind);
      expect(domainSpecText(spec), f.example).toBe(f.example);
      expect(parsed(domainSpecText(spec))).toEqual(spec);
    }
  });

  it('reads numbers and options as written', () => {
    expect(parsed(' GRID:3x4:metric=chebyshev:step=2.5 ')).toEqual({
      kind: 'grid',
      rows: 3,
      cols: 4,
      step: 2.5,
      metric: 'chebyshev',
    });
    expect(parsed('db:3,2:absent:metric=normalized')).toEqual({
      kind: 'db',
      u: 3,
      v: 2,
      metric: 'normalised',
      absent: true,
    });
    expect(parsed('percentile:10, 5, 12.5')).toEqual({ kind: 'percentile', u: 10, v: 5, p: 12.5 });
    expect(parsed('csv:C:\\data\\d.csv')).toEqual({ kind: 'csv', file: 'C:\\data\\d.csv' });
    expect(domainSpecSize(parsed('kcount:2,3'))).toBe(16);
    expect(domainSpecSize(parsed('db:2,3:absent'))).toBe(16);
  });

  it('the engine builds every example with the size the grammar, the admission estimate and the editors state', () => {
    for (const f of DOMAIN_FORMS) {
      const domain = parseDomainSpec(f.example, reader);
      const spec = parsed(f.example);
      const editor = parseDomainText(f.example);
      expect(editor, f.example).toEqual(spec);
      if (f.kind === 'graph' || f.kind === 'csv') {
        expect(domain.n).toBe(3);
        expect(domainSize(editor)).toBeNaN();
        continue;
      }
      expect(domain.n, f.example).toBe(domainSpecSize(spec));
      expect(domainSize(editor), f.example).toBe(domain.n);
      expect(sizeOfParsedSpec(f.example, spec)?.n, f.example).toBe(domain.n);
      // the built domain's own spec is canonical: it parses to the same DomainSpec
      expect(parsed(domain.spec), f.example).toEqual(spec);
    }
  });

  it('the engine and the editors refuse the same texts with the same message', () => {
    const bad = [
      '',
      '  ',
      'torus:4',
      'line',
      'line:-3',
      'line:1e3',
      'line:0x10',
      'ring:4,5',
      'grid:4',
      'grid:4x4:step=0',
      'grid:4x4:step=-1',
      'grid:4x4:metric=taxi',
      'grid:4x4:step=1:step=2',
      'db:3',
      'db:3,2:absent:absent',
      'db:3,2:metric=max:metric=hamming',
      'percentile:5,4,0',
      'percentile:5,4,101',
      'percentile:5,4,1e1',
      'sum:3',
      'count:3:absent',
      'graph:',
      'csv:  ',
    ];
    for (const text of bad) {
      const r = parseDomainSpecText(text);
      expect(r.ok, text).toBe(false);
      if (r.ok) continue;
      expect(r.error).toMatch(/^(empty domain|malformed domain|unknown domain)/);
      expect(r.error.endsWith(`accepted forms: ${DOMAIN_SPEC_FORMS}`)).toBe(true);
      let thrown: unknown;
      try {
        parseDomainSpec(text, reader);
      } catch (e) {
        thrown = e;
      }
      expect(thrown, text).toBeInstanceOf(MechError);
      expect((thrown as MechError).code).toBe('invalid-input');
      expect((thrown as MechError).message).toBe(r.error);
      const editor = parseDomainText(text);
      expect(editor.kind === 'other' && editor.error, text).toBe(r.error);
    }
  });

  it('the CLI help, docs/cli.md and docs/cli-and-formats.md list every form', () => {
    const manual = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    const docs = readFileSync(join(ROOT, 'docs/cli-and-formats.md'), 'utf8').replace(/\n/g, ' ');
    const helpForms = USAGE.slice(USAGE.indexOf('Domains:'), USAGE.indexOf('Kinds:'))
      .split(/\s+/)
      .filter((w) => w !== '' && w !== 'Domains:');
    expect(helpForms).toEqual(DOMAIN_FORMS.map((f) => f.form));
    for (const f of DOMAIN_FORMS) {
      expect(manual, `docs/cli.md lacks ${f.form}`).toContain(`\`${f.form}\``);
      expect(docs, `docs lack ${f.form}`).toContain(`\`${f.form}\``);
    }
  });
});
