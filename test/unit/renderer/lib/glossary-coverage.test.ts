/**
 * The glossary is the reference for every term the app shows: every mechanism kind, loss and LP constraint model
 * offered in the app's menus, and the words of an LP result, has an entry (a new kind without one fails here).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GLOSSARY } from '../../../../src-renderer/lib/plain';
import { KIND_LABELS } from '../../../../src-renderer/lib/project-model';
import { LP_MODEL_LABELS } from '../../../../src-renderer/lib/lp-options';
import { LOSS_WORDS } from '../../../../src-shared/charts/sweep-charts';

const ROOT = join(__dirname, '../../../..');
const terms = GLOSSARY.map((g) => g.term.toLowerCase());
const covered = (word: string): boolean => terms.some((t) => t.includes(word.toLowerCase()));

describe('glossary coverage', () => {
  it('every mechanism kind in the menus', () => {
    // the name before its parenthesis: 'Planar Laplace (grids)' -> 'planar laplace'; 'Optimal (LP, ...)' -> 'optimal'
    const missing = Object.values(KIND_LABELS)
      .map((l) => l.split(' (')[0]!)
      .filter((name) => !covered(name.replace(/^Exponential$/, 'Exponential mechanism')));
    expect(missing).toEqual([]);
  });

  it('every loss offered in a menu and every LP constraint model', () => {
    const sources = ['src-renderer/views/MechanismView.svelte', 'src-renderer/views/AnalysisView.svelte'].map((f) =>
      readFileSync(join(ROOT, f), 'utf8'),
    );
    const values = new Set<string>();
    for (const src of sources) for (const m of src.matchAll(/<option value="([a-z0-9]+)"/g)) values.add(m[1]!);
    for (const v of ['bin', 'nib', 'dist', 'dist2']) expect(values.has(v), `${v} is offered`).toBe(true);
    const words = (id: string) => GLOSSARY.find((g) => g.id === id)!.term;
    // each loss by the words of its menu entry (before the parenthesis), and by its name in project files
    for (const [v, label] of Object.entries(LOSS_WORDS)) {
      expect(words('losses').toLowerCase()).toContain(label.split(' (')[0]!.replace(/ between guess and truth$/, ''));
      expect(GLOSSARY.find((g) => g.id === 'losses')!.text).toContain(v);
    }
    // the LP editor's model menu (LP_MODEL_LABELS): every model but 'auto' (which picks one of them) named in the entry
    for (const v of Object.keys(LP_MODEL_LABELS).filter((k) => k !== 'auto')) expect(words('lp-models')).toContain(v);
  });

  it('the words of a result: effective ε, certified bound and gap, usefulness', () => {
    for (const w of [
      'effective ε',
      'certified bound',
      'gap',
      'usefulness',
      'remap',
      'regular prior',
      'corner priors',
      'capacity',
      'leakage',
    ])
      expect(covered(w), w).toBe(true);
  });

  it('the words of the smart-meter panel and its case study', () => {
    // the trace editor (levels, d∞ or d1, mean absolute and RMS error) and the case study's findings and tables
    const panel = readFileSync(join(ROOT, 'src-renderer/editors/SmartMeterEditor.svelte'), 'utf8');
    const study = readFileSync(join(ROOT, 'src-worker/casestudy/smart-meter.ts'), 'utf8');
    for (const [w, src] of [
      ['levels', panel],
      ['d∞', panel],
      ['d1', panel],
      ['mean absolute error', panel],
      ['RMS error', panel],
      ['percentile', study],
      ['Laplace noise', study],
      ['keeps the guarantee', study],
      ['truncated geometric', study],
    ] as const) {
      expect(src.toLowerCase(), `${w} is shown`).toContain(w.toLowerCase());
      expect(covered(w), w).toBe(true);
    }
  });
});
