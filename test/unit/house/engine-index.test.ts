/**
 * The engine's public API (src-worker/index.ts):
 *  - every engine module is reachable from an entry point of the app (the
 *    worker, the command line, the Electron and web hosts, the scripts, the
 *    renderer) or from the index: no engine file lives for its tests alone;
 *  - every name the index lists is defined (a re-export of a renamed or
 *    deleted function fails here, not in a user's import).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as engine from '../../../src-worker/index';

const ROOT = join(__dirname, '../../..');

function files(dir: string, keep: (name: string) => boolean, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) files(p, keep, out);
    else if (keep(e.name)) out.push(p);
  }
  return out;
}

/** Relative imports of a source file (static, re-exports, dynamic, `new URL(...)` worker scripts), resolved to files. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
  for (const m of text.matchAll(/new URL\(\s*['"](\.[^'"]+)['"]/g)) specs.push(m[1]!);
  const out: string[] = [];
  for (const s of specs) {
    if (!s.startsWith('.')) continue;
    const base = resolve(dirname(file), s);
    const hit = [base, `${base}.ts`, join(base, 'index.ts'), base.replace(/\.js$/, '.ts')].find((c) => existsSync(c) && statSync(c).isFile());
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

describe("the engine's public API", () => {
  it('every engine module is reachable from an entry point of the app or from src-worker/index.ts', () => {
    const fromApp = reachable(ENTRIES);
    const withIndex = reachable([...ENTRIES, join(ROOT, 'src-worker/index.ts')]);
    const engineFiles = files(join(ROOT, 'src-worker'), (n) => n.endsWith('.ts') && !n.endsWith('.d.ts'));
    const orphans = engineFiles.filter((f) => !withIndex.has(f)).map((f) => relative(ROOT, f));
    expect(orphans).toEqual([]);
    // the index adds library features only: most of the engine is reached by the app itself
    expect(engineFiles.filter((f) => fromApp.has(f)).length).toBeGreaterThan(engineFiles.length * 0.8);
  });

  it('every name the index lists is defined', () => {
    const undefinedNames = Object.entries(engine)
      .filter(([, v]) => v === undefined)
      .map(([k]) => k);
    expect(undefinedNames).toEqual([]);
    // a few that the jobs, the CLI and the docs rely on
    for (const name of [
      'runJobRequest',
      'parseDomainSpec',
      'checkPrivacy',
      'optimalMechanism',
      'closedFormMechanism',
      'hyperDistribution',
      'checkComposedWithQuery',
      'factsOf',
    ] as const) {
      expect(typeof engine[name]).toBe('function');
    }
    expect(typeof engine.jobEngine.buildMechanism).toBe('function');
  });
});
