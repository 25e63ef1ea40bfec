/**
 * The layering is enforced by lint (README, "How the
 * engine is organised"): eslint.config.js forbids the imports that cross it,
 * the engine's floors (ENGINE_FLOORS), the LP's rooms (LP_FLOORS) and the page's (RENDERER_FLOORS) included.
 * Deliberate violations, linted as if they were files at the given paths,
 * must fail with no-restricted-imports; the allowed imports beside them must
 * not; the width and length rules (MAX_LEN, 700 lines) refuse a case just past each and allow one at it;
 * and the real tree must lint clean.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '../../..');
const eslint = new ESLint({ cwd: ROOT });

/** Messages of the layering rule for `code` linted as the file `path` (relative to the root). */
async function layeringErrors(path: string, code: string): Promise<string[]> {
  const [res] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  expect(res, path).toBeDefined();
  const fatal = res!.messages.filter((m) => m.fatal);
  expect(fatal, `${path} must parse`).toEqual([]);
  return res!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

/** [file path, import specifier, what the message must say] for each boundary. */
const VIOLATIONS: [string, string, RegExp][] = [
  ['src-renderer/lib/bad.ts', '../../src-worker/metric/line', /renderer talks to the engine only through/],
  [
    'src-renderer/views/explorer/Bad.ts',
    '../../../src-main/charts/render-chart',
    /renderer talks to the engine only through/,
  ],
  ['src-worker/linalg/bad.ts', '../metric/domain', /src-worker\/linalg\/ sits on floor 9 of the engine/],
  ['src-worker/mechanism/bad.ts', '../check/privacy-check', /src-worker\/mechanism\/ sits on floor 6/],
  ['src-worker/mechanism/implicit/bad.ts', '../../check/privacy-check', /src-worker\/mechanism\/ sits on floor 6/],
  ['src-worker/mechanism/bad.ts', '../lp/optimal/optimal-mechanism', /imports only folders on lower floors/],
  ['src-worker/metric/bad.ts', '../jobs/admission', /src-worker\/metric\/ sits on floor 8/],
  // a sibling on the same floor is not below
  ['src-worker/check/bad.ts', '../measure/prior', /src-worker\/check\/ sits on floor 5/],
  ['src-worker/measure/bad.ts', '../index', /does not import the engine's door/],
  ['src-worker/measure/structured/bad.ts', '../../index', /does not import the engine's door/],
  ['src-worker/jobs/bad.ts', '../library', /does not import the engine's doors/],
  // the LP's rooms: optimal > channel > decomposition > pricing, model, other > solver
  [
    'src-worker/lp/pricing/bad.ts',
    '../decomposition/decomposition-master',
    /src-worker\/lp\/pricing\/ sits on floor 4 of the LP/,
  ],
  [
    'src-worker/lp/solver/bad.ts',
    '../model/privacy-constraint-graph',
    /src-worker\/lp\/solver\/ sits on floor 5 of the LP/,
  ],
  [
    'src-worker/lp/decomposition/bad.ts',
    '../channel/private-channel-lp',
    /src-worker\/lp\/decomposition\/ sits on floor 3/,
  ],
  ['src-worker/lp/channel/bad.ts', '../optimal/optimal-options', /src-worker\/lp\/channel\/ sits on floor 2 of the LP/],
  // a sibling room on the same floor is not below
  ['src-worker/lp/model/bad.ts', '../pricing/exact-pricing', /imports only its own files and lower rooms/],
  // a room keeps the engine's rule for lp
  ['src-worker/lp/optimal/bad.ts', '../../jobs/engine', /src-worker\/lp\/ sits on floor 4 of the engine/],
  ['src-worker/lp/solver/bad.ts', '../../index', /does not import the engine's door/],
  ['src-main/project/bad.ts', '../cli/args', /src-main\/project serves the app and the CLI/],
  ['src-main/host/bad.ts', '../web/server', /src-main\/host is shared by both shells/],
  ['src-main/host/bad.ts', '../electron/menu', /src-main\/host is shared by both shells/],
  ['src-shared/charts/bad.ts', '../../src-worker/errors', /src-shared is imported by all three processes/],
  ['src-shared/protocol/bad.ts', '../../src-main/fs/safe-fs', /src-shared is imported by all three processes/],
  ['src-worker/jobs/bad.ts', '../../src-main/fs/inputs', /the engine \(src-worker\) imports only/],
  ['src-worker/linalg/bad-too.ts', '../../src-renderer/lib/format', /the engine \(src-worker\) imports only/],
  ['src-main/cli/bad.ts', '../../src-renderer/lib/format', /main process does not import the renderer/],
  ['src-main/queue/bad.ts', '../../src-worker/lp/pricing/pricing-pool', /reaches the engine through its door/],
  ['src-worker/jobs/bad.ts', '../../src-shared/protocol/results', /job protocol through its index/],
  ['src-main/cli/bad.ts', '../../src-shared/protocol/requests', /job protocol through its index/],
  ['src-shared/charts/bad.ts', '../protocol/results', /job protocol through its index/],
  ['src-renderer/lib/bad.ts', '../../src-shared/protocol/results', /job protocol through its index/],
  ['src-main/project/bad.ts', '../../src-worker/jobs/project-plan', /reaches the engine through its door/],
  // the library door is for library users, not the hosts
  ['src-main/cli/bad.ts', '../../src-worker/library', /reaches the engine through its door/],
  // no renderer file is exempt
  ['src-renderer/lib/points-import.ts', '../../src-worker/data/points', /renderer talks to the engine only through/],
  // the page's floors: lib < components < editors < views < App.svelte, main.ts
  ['src-renderer/lib/bad.ts', '../editors/number-field', /src-renderer\/lib\/ sits on floor 5 of the page/],
  ['src-renderer/lib/bad.ts', '../components/Modal.svelte', /src-renderer\/lib\/ sits on floor 5/],
  ['src-renderer/lib/bad.ts', '../App.svelte', /src-renderer\/lib\/ sits on floor 5/],
  ['src-renderer/lib/bad.ts', '../main', /src-renderer\/lib\/ sits on floor 5/],
  ['src-renderer/components/bad.ts', '../editors/domain-spec', /src-renderer\/components\/ sits on floor 4/],
  ['src-renderer/components/bad.ts', '../views/AnalysisView.svelte', /imports only its own files and lower floors/],
  ['src-renderer/editors/bad.ts', '../views/AuditView.svelte', /src-renderer\/editors\/ sits on floor 3/],
  ['src-renderer/views/bad.ts', '../App.svelte', /src-renderer\/views\/ sits on floor 2/],
  ['src-renderer/views/explorer/bad.ts', '../../main.ts', /src-renderer\/views\/ sits on floor 2/],
];

describe('lint: the layering rules (eslint.config.js)', () => {
  it.each(VIOLATIONS)('%s importing %s fails', async (path, spec, message) => {
    for (const form of [
      `import { x } from '${spec}';\nexport const y = x;\n`,
      `import type { X } from '${spec}';\nexport type Y = X;\n`,
      `export { x } from '${spec}';\n`,
    ]) {
      const errors = await layeringErrors(path, form);
      expect(errors, form).toHaveLength(1);
      expect(errors[0], form).toMatch(message);
    }
  });

  it('a Svelte component in the renderer importing the engine fails', async () => {
    const code = `<script lang="ts">\n  import { lineDomain } from '../../src-worker/metric/line';\n  const d = lineDomain(3);\n</script>\n<p>{d.n}</p>\n`;
    const errors = await layeringErrors('src-renderer/views/Bad.svelte', code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/renderer talks to the engine only through/);
  });

  it('a Svelte component importing a floor above its own fails', async () => {
    const code = `<script lang="ts">\n  import AnalysisView from '../views/AnalysisView.svelte';\n</script>\n<AnalysisView />\n`;
    const errors = await layeringErrors('src-renderer/components/Bad.svelte', code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /src-renderer\/components\/ sits on floor 4 of the page \(App.svelte, main.ts > views > editors > components > lib\)/,
    );
  });

  it('the imports each layer may make pass', async () => {
    const ok: [string, string][] = [
      ['src-renderer/lib/ok.ts', '../../src-shared/protocol/index'],
      ['src-renderer/lib/ok.ts', '../../src-shared/charts/sweep-charts'],
      ['src-renderer/lib/ok.ts', './format'],
      ['src-renderer/lib/points-import.ts', '../../src-shared/data/points-grid'],
      ['src-worker/linalg/ok.ts', './matrix'],
      ['src-worker/phi/ok.ts', '../metric/domain'],
      ['src-worker/mechanism/ok.ts', '../metric/domain'],
      ['src-worker/check/ok.ts', '../mechanism/channel'],
      // src-shared's folders share names with the engine's (data, numeric): not the engine's floors
      ['src-worker/measure/ok.ts', '../../src-shared/data/points-grid'],
      ['src-worker/metric/ok.ts', '../base/admission-limits'],
      ['src-worker/lp/solver/ok.ts', '../../mechanism/lp-result'],
      ['src-worker/lp/optimal/ok.ts', '../channel/private-channel-lp'],
      ['src-worker/lp/optimal/ok.ts', '../decomposition/decomposition-master'],
      ['src-worker/lp/channel/ok.ts', '../model/channel-model'],
      ['src-worker/lp/decomposition/ok.ts', '../pricing/pricing-pool'],
      ['src-worker/lp/pricing/ok.ts', './pricing'],
      ['src-worker/lp/model/ok.ts', '../solver/sparse-model'],
      ['src-worker/lp/other/ok.ts', '../../metric/domain'],
      ['src-worker/jobs/ok.ts', '../casestudy'],
      ['src-worker/jobs/ok.ts', '../../src-shared/protocol/index'],
      ['src-main/project/ok.ts', '../fs/inputs'],
      ['src-main/web/ok.ts', '../host/host'],
      ['src-main/cli/ok.ts', '../../src-worker/index'],
      ['src-shared/charts/ok.ts', '../protocol/index'],
      ['src-shared/protocol/ok.ts', './results'],
      ['src-shared/charts/ok.ts', 'chart.js'],
      // the page: its own files and the floors below
      ['src-renderer/views/ok.ts', '../editors/domain-spec'],
      ['src-renderer/views/ok.ts', '../components/Modal.svelte'],
      ['src-renderer/views/ok.ts', './explorer/SimplexView.svelte'],
      ['src-renderer/views/explorer/ok.ts', '../AnalysisView.svelte'],
      ['src-renderer/views/explorer/ok.ts', '../../lib/format'],
      ['src-renderer/editors/ok.ts', '../components/Modal.svelte'],
      ['src-renderer/editors/ok.ts', '../lib/number-field'],
      ['src-renderer/components/ok.ts', '../lib/state.svelte'],
      ['src-renderer/lib/ok.ts', './state.svelte'],
      ['src-renderer/ok.ts', './views/AnalysisView.svelte'],
      ['src-renderer/ok.ts', './lib/state.svelte'],
    ];
    for (const [path, spec] of ok)
      expect(
        await layeringErrors(path, `import { x } from '${spec}';\nexport const y = x;\n`),
        `${path} -> ${spec}`,
      ).toEqual([]);
  });

  it('every folder of the engine is on a floor of the table', async () => {
    const { ENGINE_FLOORS } = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as {
      ENGINE_FLOORS: string[][];
    };
    const listed = ENGINE_FLOORS.flat().sort();
    const folders = readdirSync(join(ROOT, 'src-worker'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(listed).toEqual(folders);
  });

  it('every room of src-worker/lp is on a floor of its table, named unlike any engine folder, and lp has no module of its own', async () => {
    const { ENGINE_FLOORS, LP_FLOORS } = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as {
      ENGINE_FLOORS: string[][];
      LP_FLOORS: string[][];
    };
    const entries = readdirSync(join(ROOT, 'src-worker/lp'), { withFileTypes: true });
    const rooms = entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect(LP_FLOORS.flat().sort()).toEqual(rooms);
    expect(rooms.filter((r) => ENGINE_FLOORS.flat().includes(r))).toEqual([]);
    expect(entries.filter((e) => e.isFile() && e.name !== 'README.md').map((e) => e.name)).toEqual([]);
  });

  it('every folder and top-level module of the page is on a floor of the table', async () => {
    const { RENDERER_FLOORS } = (await import(pathToFileURL(join(ROOT, 'eslint.config.js')).href)) as {
      RENDERER_FLOORS: string[][];
    };
    const listed = RENDERER_FLOORS.flat().sort();
    const entries = readdirSync(join(ROOT, 'src-renderer'), { withFileTypes: true })
      .filter((e) => e.isDirectory() || /\.(svelte|ts)$/.test(e.name))
      .map((e) => e.name)
      .filter((n) => !n.endsWith('.d.ts'))
      .sort();
    expect(listed).toEqual(entries);
  });

  it('holds code and comments to 120 columns and a source file to 700 lines; a string may run past', async () => {
    /** [rule, line] of the width and length rules for `code` linted as the file `path`. */
    const sizeErrors = async (path: string, code: string): Promise<[string, number][]> => {
      const [res] = await eslint.lintText(code, { filePath: join(ROOT, path) });
      expect(
        res!.messages.filter((m) => m.fatal),
        `${path} must parse`,
      ).toEqual([]);
      return res!.messages
        .filter((m) => m.ruleId === 'max-len' || m.ruleId === 'max-lines')
        .map((m) => [m.ruleId!, m.line]);
    };
    const name = 'x'.repeat(99);
    // 121 columns of code, then of a comment: refused, in the engine, the main process, the shared code and the page
    const longCode = `export const ${name} = 12345;\n`;
    const longComment = `// ${'words '.repeat(19)}word\n`;
    expect(longCode.length - 1).toBe(121);
    expect(longComment.length - 1).toBe(121);
    for (const path of ['src-worker/metric/bad.ts', 'src-main/cli/bad.ts', 'src-shared/charts/bad.ts'])
      expect(await sizeErrors(path, longCode + longComment), path).toEqual([
        ['max-len', 1],
        ['max-len', 2],
      ]);
    expect(await sizeErrors('src-renderer/lib/bad.ts', longCode)).toEqual([['max-len', 1]]);
    // exactly 120 columns is allowed; a string or template literal and a URL may run past
    expect(await sizeErrors('src-worker/metric/ok.ts', `export const ${'x'.repeat(98)} = 12345;\n`)).toEqual([]);
    const prose = `export const words = '${'a'.repeat(130)}';\nexport const t = \`${'b'.repeat(130)}\`;\n`;
    const url = `// see https://example.org/${'c'.repeat(120)}\n`;
    expect(await sizeErrors('src-shared/charts/ok.ts', prose + url)).toEqual([]);
    // 701 lines refused, 700 allowed
    const lines = (k: number): string => Array.from({ length: k }, (_, i) => `export const v${i} = ${i};`).join('\n');
    expect(await sizeErrors('src-worker/metric/bad.ts', lines(701) + '\n')).toEqual([['max-lines', 701]]);
    expect(await sizeErrors('src-worker/metric/ok.ts', lines(700) + '\n')).toEqual([]);
    // a Svelte component: Prettier lays out its script and markup, lint holds its comments
    const prosePara = `<p>\n  ${'word '.repeat(30)}{x}\n</p>\n`;
    const svelteComment = `<script lang="ts">\n  // ${'words '.repeat(19)}word\n  let x = 1;\n</script>\n`;
    expect(
      await sizeErrors('src-renderer/views/Ok.svelte', svelteComment.replace(/\/\/ .*\n/, '') + prosePara),
    ).toEqual([]);
    expect(await sizeErrors('src-renderer/views/Bad.svelte', svelteComment + prosePara)).toEqual([['max-len', 2]]);
    // tests are not held to either rule: a table of reference values may be long
    expect(await sizeErrors('test/unit/worker/metric/ok.test.ts', longCode + lines(701))).toEqual([]);
  });

  it('the real tree lints clean (npm run lint)', async () => {
    // npm run lint's cache: after it (npm test runs it first) only files changed since are linted again
    const results = await new ESLint({
      cwd: ROOT,
      cache: true,
      cacheLocation: join(ROOT, 'node_modules/.cache/eslint/'),
    }).lintFiles(['.']);
    const problems = results.flatMap((r) =>
      r.messages.map((m) => `${r.filePath.slice(ROOT.length + 1)}:${m.line} ${m.ruleId ?? 'fatal'}: ${m.message}`),
    );
    expect(problems).toEqual([]);
    // the lint covered the sources, Svelte components included
    const linted = results.map((r) => r.filePath.slice(ROOT.length + 1));
    expect(linted.some((f) => f.startsWith('src-renderer/') && f.endsWith('.svelte'))).toBe(true);
    expect(linted.filter((f) => f.startsWith('src-worker/')).length).toBeGreaterThan(100);
  }, 180_000);
});
