/**
 * House rule: no export without an importer. Every export of a TypeScript
 * source file (src-worker, src-main, src-shared, src-renderer) is imported by
 * some other file of the repository: a source, a .svelte component, a test,
 * a script. An export only its own file uses loses its `export`; one nobody
 * uses is deleted. The engine's doors (src-worker/index.ts, library.ts) are
 * checked by engine-index.test.ts instead: what they pass on is the API.
 * An exception is listed in ALLOWED with its reason, and an entry that no
 * longer holds (the export is used or gone) fails too.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readModules, unusedExports } from './export-uses';

const ROOT = join(__dirname, '../../..');

/** Exports no other file imports, each with the reason it stays: "path name". */
const ALLOWED: Record<string, string> = {
  'src-renderer/lib/bridge.ts createWebSocketApi':
    'imported by test/integration/web-bridge-cap.test.ts through a computed path (the page module type-checks with the DOM library, not in that Node test)',
};

const DOORS = ['src-worker/index.ts', 'src-worker/library.ts'];

function files(dir: string, keep: (name: string) => boolean, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) files(p, keep, out);
    else if (keep(e.name)) out.push(p);
  }
  return out;
}

const importer = (n: string): boolean => /\.(ts|mts|mjs|js|svelte)$/.test(n) && !n.endsWith('.d.ts');
const rel = (f: string): string => relative(ROOT, f).split('\\').join('/');

/** "path name" of every export of a checked file that no other file of the repository imports. */
function unusedInRepository(): string[] {
  const all = [
    ...['src-worker', 'src-main', 'src-shared', 'src-renderer', 'test', 'scripts', 'bin'].flatMap((d) =>
      files(join(ROOT, d), importer),
    ),
    ...readdirSync(ROOT)
      .filter((n) => /\.(ts|mjs|js)$/.test(n))
      .map((n) => join(ROOT, n)),
  ];
  const checked = all.filter(
    (f) => /^src-(worker|main|shared|renderer)\//.test(rel(f)) && f.endsWith('.ts') && !DOORS.includes(rel(f)),
  );
  return unusedExports(readModules(all), checked).map((u) => `${rel(u.file)} ${u.name}`);
}

describe('every export has an importer', () => {
  const unused = unusedInRepository();

  it('no export of src-* is used by its own file alone, except those allowed with a reason', () => {
    expect(unused.filter((u) => !(u in ALLOWED))).toEqual([]);
  });

  it('every allowed exception still holds (an export now used or gone leaves the list)', () => {
    const now = new Set(unused);
    expect(Object.keys(ALLOWED).filter((k) => !now.has(k))).toEqual([]);
  });

  it('the checker reports an unused export of a fixture and credits every kind of import', () => {
    const fixture: Record<string, string> = {
      '/fx/a.ts':
        'export function used(): number { return 1; }\nexport function unused(): number { return 2; }\nexport const viaStar = 1;\nexport type T = number;\nconst local = 3;\nexport { local as renamed };\n',
      '/fx/barrel.ts': "export * from './a';\n",
      '/fx/c.ts':
        "import { used, renamed } from './a';\nimport type { T } from './barrel';\nconst x: T = used() + renamed;\nvoid x;\n",
      '/fx/view.svelte': '<script lang="ts">\n  import { viaStar } from \'./barrel\';\n</script>\n<p>{viaStar}</p>\n',
      '/fx/ns.ts': 'export const one = 1;\nexport const two = 2;\n',
      '/fx/e.ts': "import * as ns from './ns';\nvoid ns.one;\n",
      '/fx/lazy.ts': 'export const wanted = 1;\nexport const left = 2;\n',
      '/fx/g.ts':
        "export async function g(): Promise<number> {\n  const { wanted } = await import('./lazy');\n  return wanted;\n}\n",
    };
    const modules = readModules(
      Object.keys(fixture),
      (f) => fixture[f]!,
      (p) => p in fixture,
    );
    const report = unusedExports(modules, ['/fx/a.ts', '/fx/ns.ts', '/fx/lazy.ts', '/fx/g.ts']).map(
      (u) => `${u.file} ${u.name}`,
    );
    expect(report).toEqual(['/fx/a.ts unused', '/fx/ns.ts two', '/fx/lazy.ts left', '/fx/g.ts g']);
  });
});
