/**
 * The engine's two doors (docs/engine-api.md):
 *  - src-worker/index.ts, the hosts' door, exports exactly the engine names
 *    the main process (src-main/) imports: a name no host uses is not there;
 *  - src-worker/library.ts, the library door, exports the documented
 *    features no host uses: no name of the hosts' door, every value written
 *    in docs/engine-api.md, every type beside a value of the same module;
 *  - every engine module is reachable from an entry point of the app (the
 *    worker, the command line, the Electron and web hosts, the scripts, the
 *    renderer) or from a door: no engine file lives for its tests alone;
 *  - every name a door lists is defined (a re-export of a renamed or deleted
 *    function fails here, not in a user's import).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as hosts from '../../../src-worker/index';
import * as library from '../../../src-worker/library';
import { readModules, usedExports } from './export-uses';

const ROOT = join(__dirname, '../../..');
const INDEX = join(ROOT, 'src-worker/index.ts');
const LIBRARY = join(ROOT, 'src-worker/library.ts');

function files(dir: string, keep: (name: string) => boolean, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) files(p, keep, out);
    else if (keep(e.name)) out.push(p);
  }
  return out;
}

/**
 * Relative imports of a source file (static, re-exports, dynamic, `new URL(...)` worker scripts), resolved to files.
 */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
  for (const m of text.matchAll(/new URL\(\s*['"](\.[^'"]+)['"]/g)) specs.push(m[1]!);
  const out: string[] = [];
  for (const s of specs) {
    if (!s.startsWith('.')) continue;
    const base = resolve(dirname(file), s);
    const hit = [base, `${base}.ts`, join(base, 'index.ts'), base.replace(/\.js$/, '.ts')].find(
      (c) => existsSync(c) && statSync(c).isFile(),
    );
    if (hit) out.push(hit);
  }
  return out;
}

function reachable(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...entries];
  while (stack.length) {
    const f = stack.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    stack.push(...importsOf(f));
  }
  return seen;
}

const isSource = (n: string): boolean => /\.(ts|mjs|svelte)$/.test(n) && !n.endsWith('.d.ts');
const ENTRIES = [
  join(ROOT, 'src-worker/worker-entry.ts'),
  join(ROOT, 'src-main/electron/main.ts'),
  ...files(join(ROOT, 'src-main/cli'), isSource),
  ...files(join(ROOT, 'src-main/web'), isSource),
  ...files(join(ROOT, 'src-main/host'), isSource),
  ...files(join(ROOT, 'scripts'), isSource),
  ...files(join(ROOT, 'src-renderer'), isSource),
];

/** One name a door passes on: the module it comes from and whether it is a type. */
interface DoorName {
  readonly name: string;
  readonly from: string;
  readonly type: boolean;
}

/** The names a door file re-exports (`export { a, type B } from './m'`, `export * as ns from './m'`). */
function doorNames(file: string, text: string): DoorName[] {
  const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: DoorName[] = [];
  for (const st of src.statements) {
    if (
      !ts.isExportDeclaration(st) ||
      !st.moduleSpecifier ||
      !ts.isStringLiteral(st.moduleSpecifier) ||
      !st.exportClause
    )
      continue;
    const from = st.moduleSpecifier.text;
    if (ts.isNamespaceExport(st.exportClause)) out.push({ name: st.exportClause.name.text, from, type: st.isTypeOnly });
    else
      for (const el of st.exportClause.elements)
        out.push({ name: el.name.text, from, type: st.isTypeOnly || el.isTypeOnly });
  }
  return out;
}

/** What is wrong with the hosts' door: names it exports that no host file imports from it. */
function hostDoorProblems(exported: readonly string[], usedByHosts: ReadonlySet<string>): string[] {
  return exported
    .filter((n) => !usedByHosts.has(n))
    .map(
      (n) =>
        `${n}: exported by src-worker/index.ts, imported by no file of src-main/ (move it to library.ts or delete it)`,
    );
}

/**
 * What is wrong with the library door: a name also behind the hosts' door, a value the API page does not name, a type
 * with no value of its module.
 */
function libraryDoorProblems(
  lib: readonly DoorName[],
  hostNames: ReadonlySet<string>,
  hostModules: ReadonlySet<string>,
  apiPage: string,
): string[] {
  const out: string[] = [];
  const valueModules = new Set([...lib.filter((d) => !d.type).map((d) => d.from), ...hostModules]);
  for (const d of lib) {
    if (hostNames.has(d.name)) out.push(`${d.name}: behind both doors (a host uses it: keep it in index.ts only)`);
    else if (!d.type && !apiPage.includes(`\`${d.name}\``))
      out.push(`${d.name}: exported by src-worker/library.ts, not named in docs/engine-api.md`);
    else if (d.type && !valueModules.has(d.from))
      out.push(`${d.name}: a type of ${d.from}, which gives the doors no value`);
  }
  return out;
}

const read = (f: string): string => readFileSync(f, 'utf8');

describe("the engine's doors", () => {
  it('every engine module is reachable from an entry point of the app or from a door', () => {
    const fromApp = reachable(ENTRIES);
    const withDoors = reachable([...ENTRIES, INDEX, LIBRARY]);
    const engineFiles = files(join(ROOT, 'src-worker'), (n) => n.endsWith('.ts') && !n.endsWith('.d.ts'));
    const orphans = engineFiles.filter((f) => !withDoors.has(f)).map((f) => relative(ROOT, f));
    expect(orphans).toEqual([]);
    // the library door adds library features only: most of the engine is reached by the app itself
    expect(engineFiles.filter((f) => fromApp.has(f)).length).toBeGreaterThan(engineFiles.length * 0.8);
  });

  it('the hosts door exports exactly what src-main imports from it', () => {
    const mainFiles = files(join(ROOT, 'src-main'), isSource);
    const modules = readModules([INDEX, ...mainFiles]);
    const usedByHosts = new Set(usedExports(modules).get(INDEX)?.keys() ?? []);
    const exported = doorNames(INDEX, read(INDEX)).map((d) => d.name);
    expect(hostDoorProblems(exported, usedByHosts)).toEqual([]);
    expect(exported.length).toBe(usedByHosts.size);
  });

  it('the library door exports documented features only, none a host uses', () => {
    const host = doorNames(INDEX, read(INDEX));
    const lib = doorNames(LIBRARY, read(LIBRARY));
    const problems = libraryDoorProblems(
      lib,
      new Set(host.map((d) => d.name)),
      new Set(host.map((d) => d.from)),
      read(join(ROOT, 'docs/engine-api.md')),
    );
    expect(problems).toEqual([]);
    expect(lib.length).toBeGreaterThan(50);
  });

  it('the door checks fail on a name no host uses, a name behind both doors, an undocumented value and a stray type', () => {
    expect(hostDoorProblems(['rowsOf', 'splitStudy'], new Set(['rowsOf']))).toEqual([
      'splitStudy: exported by src-worker/index.ts, imported by no file of src-main/ (move it to library.ts or delete it)',
    ]);
    const text = [
      "export { rowsOf } from './jobs/rows-view';",
      "export { cascade, secretHelper } from './mechanism/combinators/cascade';",
      "export { type Stray } from './stray';",
      "export { type Domain } from './metric/domain';",
      "export * as jobEngine from './jobs/engine';",
    ].join('\n');
    const lib = doorNames('/x/library.ts', text);
    expect(lib).toContainEqual({ name: 'jobEngine', from: './jobs/engine', type: false });
    expect(
      libraryDoorProblems(
        lib,
        new Set(['rowsOf']),
        new Set(['./metric/domain']),
        'the combinators: `cascade`; `jobEngine`',
      ),
    ).toEqual([
      'rowsOf: behind both doors (a host uses it: keep it in index.ts only)',
      'secretHelper: exported by src-worker/library.ts, not named in docs/engine-api.md',
      'Stray: a type of ./stray, which gives the doors no value',
    ]);
  });

  it('every name a door lists is defined', () => {
    for (const door of [hosts, library]) {
      const undefinedNames = Object.entries(door)
        .filter(([, v]) => v === undefined)
        .map(([k]) => k);
      expect(undefinedNames).toEqual([]);
    }
    // a few that the hosts, the jobs and the docs rely on
    for (const name of ['parseDomainSpec', 'closedFormMechanism', 'keptRowSource', 'servePricing'] as const)
      expect(typeof hosts[name]).toBe('function');
    for (const name of [
      'runJobRequest',
      'checkPrivacy',
      'optimalMechanism',
      'hyperDistribution',
      'checkComposedWithQuery',
      'factsOf',
    ] as const) {
      expect(typeof library[name]).toBe('function');
    }
    expect(typeof library.jobEngine.buildMechanism).toBe('function');
  });
});
