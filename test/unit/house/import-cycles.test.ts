/**
 * House rule: no import cycles among the sources (src-* .ts files and the scripts of .svelte
 * components), type-only imports included. A type lives in the module that owns its concept,
 * the lower-level one, and its clients import it from there; a circle closed by `import type`
 * is still a circle for a reader and is one value import away from an initialisation-order bug.
 *
 * Edges are every relative import and re-export (`import`, `import type`, `export ... from`),
 * a type query `import('./x').T` and a dynamic `import('./x')`. Listed circles are allowed with
 * their reason; a listed circle that no longer exists is a stale entry and fails too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { scriptText, sources } from '../support/source-files';

const ROOT = join(__dirname, '../../..');

/** Allowed circles, each named by its files (sorted, joined by ' <-> ') -> why. */
const ALLOWED: Record<string, string> = {};

/** The relative module specifiers a file imports or re-exports. */
function specifiers(file: string, text: string): string[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      out.push(node.moduleSpecifier.text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      out.push(node.argument.literal.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return out.filter((s) => s.startsWith('.'));
}

/**
 * The file a relative specifier names, as the bundler resolves it ('./x' is x.ts, x/index.ts, or x.svelte.ts for
 * './x.svelte').
 */
function resolveSpecifier(from: string, spec: string, exists: (file: string) => boolean): string | undefined {
  const base = resolve(dirname(from), spec);
  const candidates = [base, `${base}.ts`, join(base, 'index.ts'), base.replace(/\.js$/, '.ts')];
  return candidates.find((c) => /\.(ts|svelte)$/.test(c) && exists(c));
}

/** Each file's imported files (absolute paths). */
function importGraph(
  files: string[],
  read: (file: string) => string,
  exists: (file: string) => boolean,
): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const to = specifiers(f, scriptText(f, read(f)))
      .map((s) => resolveSpecifier(f, s, exists))
      .filter((t): t is string => t !== undefined);
    graph.set(f, [...new Set(to)]);
  }
  return graph;
}

/** The strongly connected components with more than one file, or one file importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return out;
}

const name = (scc: string[], root: string): string =>
  scc.map((f) => relative(root, f).split('\\').join('/')).join(' <-> ');

const files = ['src-worker', 'src-main', 'src-shared', 'src-renderer'].flatMap((d) => sources(join(ROOT, d)));
const found = cycles(importGraph(files, (f) => readFileSync(f, 'utf8'), existsSync))
  .map((scc) => name(scc, ROOT))
  .sort();

describe('house rule: no import cycles, type-only imports included', () => {
  it('every import cycle among the sources is a listed one', () => {
    expect(found.filter((c) => !(c in ALLOWED))).toEqual([]);
  });

  it('the list names only cycles that still exist (stale entries are removed)', () => {
    expect(Object.keys(ALLOWED).filter((c) => !found.includes(c))).toEqual([]);
  });

  it('a circle closed only by type imports is found, and a chain is not', () => {
    const fixture: Record<string, string> = {
      '/p/src-shared/a.ts': "import type { B } from './b';\nexport type A = { b: B };\n",
      '/p/src-shared/b.ts': "import { type C } from './lib/c';\nexport type B = { c: C };\n",
      '/p/src-shared/lib/c.ts': "export type C = { a: import('../a').A };\n",
      '/p/src-shared/d.ts': "import type { A } from './a';\nexport type D = A;\n",
      '/p/src-renderer/V.svelte': '<script lang="ts">\n  import W from \'./W.svelte\';\n</script>\n<W />\n',
      '/p/src-renderer/W.svelte': '<script lang="ts">\n  import { s } from \'./s.svelte\';\n</script>\n{s}\n',
      '/p/src-renderer/s.svelte.ts': "export { default as V } from './V.svelte';\nexport const s = 1;\n",
    };
    const graph = importGraph(
      Object.keys(fixture),
      (f) => fixture[f]!,
      (f) => f in fixture,
    );
    expect(
      cycles(graph)
        .map((scc) => name(scc, '/p'))
        .sort(),
    ).toEqual([
      'src-renderer/V.svelte <-> src-renderer/W.svelte <-> src-renderer/s.svelte.ts',
      'src-shared/a.ts <-> src-shared/b.ts <-> src-shared/lib/c.ts',
    ]);
  });
});
