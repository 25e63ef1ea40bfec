/**
 * House rule: no function in src-* (.ts files and the scripts of .svelte
 * components) longer than MAX_LINES lines, outside numeric kernels. Orchestration is split into
 * named, testable steps; a numeric kernel (one hot loop nest over typed
 * arrays, where splitting would cost calls per entry or scatter one
 * algorithm's invariants) may be longer and is listed below with its reason.
 *
 * Lines are counted from the function's first token to its closing brace
 * (leading comments excluded), nested functions included in their parent.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { scriptText, sources } from '../support/source-files';

const ROOT = join(__dirname, '../../..');
const MAX_LINES = 120;

/** Numeric kernels allowed to be longer: `file#function` -> why. */
const NUMERIC_KERNELS: Record<string, string> = {
  'src-worker/check/grid-offset-check.ts#checkGridOffsetPrivacy':
    'the privacy check on a translation-invariant grid: one pass over offset tables with running maxima per pair class; the loop nest shares its bounds and early exits',
  'src-worker/remap/grid-best-guess.ts#bestIn':
    'branch-and-bound search for the best guess cell over a window of the grid: one loop nest with bounds shared across its levels',
  'src-worker/measure/structured/min-plus-transform.ts#quadtree':
    'the quadtree min-plus transform: recursion over cells with typed-array scratch buffers',
};

interface LongFunction {
  key: string;
  lines: number;
  line: number;
}

/** Every function (declaration, method, arrow, expression) over `max` lines, named by its declaration. */
function longFunctions(file: string, text: string, max: number): LongFunction[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const rel = relative(ROOT, file).split('\\').join('/');
  const out: LongFunction[] = [];
  const visit = (node: ts.Node, name: string): void => {
    let here = name;
    if (
      (ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node) || ts.isPropertyDeclaration(node)) &&
      node.name
    )
      here = node.name.getText(src);
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const own = node.name ? node.name.getText(src) : here;
      const first = src.getLineAndCharacterOfPosition(node.getStart(src)).line;
      const last = src.getLineAndCharacterOfPosition(node.getEnd()).line;
      if (last - first + 1 > max)
        out.push({ key: `${rel}#${own || '<anonymous>'}`, lines: last - first + 1, line: first + 1 });
      here = own;
    }
    ts.forEachChild(node, (c) => visit(c, here));
  };
  visit(src, '');
  return out;
}

const all = ['src-worker', 'src-main', 'src-shared', 'src-renderer']
  .flatMap((d) => sources(join(ROOT, d)))
  .flatMap((f) => longFunctions(f, scriptText(f, readFileSync(f, 'utf8')), MAX_LINES));

describe(`house rule: no function over ${MAX_LINES} lines outside numeric kernels`, () => {
  it('every long function is a listed numeric kernel', () => {
    const offenders = all
      .filter((f) => !(f.key in NUMERIC_KERNELS))
      .map((f) => `${f.key} (line ${f.line}): ${f.lines} lines`);
    expect(offenders).toEqual([]);
  });

  it('the kernel list names only functions that exist and are still long (stale entries are removed)', () => {
    const long = new Set(all.map((f) => f.key));
    const stale = Object.keys(NUMERIC_KERNELS).filter((k) => !long.has(k));
    expect(stale).toEqual([]);
  });

  it('the counter sees functions of every form, and can fail', () => {
    const body = Array.from({ length: 130 }, (_, i) => `  x += ${i};`).join('\n');
    const text = `function decl() {\n${body}\n}\nconst arrow = () => {\n${body}\n};\nclass K { method() {\n${body}\n} }\nfunction short() { return 1; }\n`;
    const found = longFunctions(join(ROOT, 'src-worker/fake.ts'), text, MAX_LINES).map((f) => f.key.split('#')[1]);
    expect(found).toEqual(['decl', 'arrow', 'method']);
  });

  it('a Svelte component is measured by its script (an $effect is a function), at its own line numbers', () => {
    const body = Array.from({ length: 130 }, (_, i) => `    x += ${i};`).join('\n');
    const text = `<script lang="ts">\n  let x = 0;\n  $effect(() => {\n${body}\n  });\n</script>\n{#each [1] as i}\n<p>{i}</p>\n{/each}\n`;
    const file = join(ROOT, 'src-renderer/Fake.svelte');
    const found = longFunctions(file, scriptText(file, text), MAX_LINES);
    expect(found.map((f) => [f.key.split('#')[1], f.line])).toEqual([['<anonymous>', 3]]);
  });
});
