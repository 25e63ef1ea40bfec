/**
 * ESLint flat config: the recommended sets of @eslint/js, typescript-eslint
 * and eslint-plugin-svelte (no type-aware rules: `npm run lint` stays a few
 * seconds), plus the project's layering as import rules (README, "How the
 * engine is organised"):
 *
 *   src-shared   imports nothing from src-main, src-worker or src-renderer;
 *   src-worker   imports nothing from src-main or src-renderer;
 *   src-renderer imports only src-shared (and its own files and packages);
 *   outside src-shared/protocol, the job protocol only through its index;
 *   src-main     imports nothing from src-renderer, and the engine only
 *                through its door (src-worker/index.ts);
 *   within the engine: the floors of ENGINE_FLOORS below, each folder
 *   importing only folders on lower floors (and src-shared, packages),
 *   and inside src-worker/lp the rooms of LP_FLOORS, likewise;
 *   within the main process: project/ does not import cli/, and host/ (the API
 *   host both shells share) imports neither shell (web/, electron/);
 *   within the page: the floors of RENDERER_FLOORS below (App.svelte and
 *   main.ts > views > editors > components > lib), likewise.
 *
 * test/unit/house/lint.test.ts lints deliberate violations against this file.
 */
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** A relative or absolute import specifier that reaches into one of the given top-level folders. */
const into = (...roots) => `(^|/)(${roots.join('|')})(/|$)`;

/** One no-restricted-imports rule (it covers `import type` and `export ... from` too) from [regex, message] pairs. */
function forbid(patterns) {
  const options = { patterns: patterns.map(([regex, message]) => ({ regex, message })) };
  return { 'no-restricted-imports': ['error', options] };
}

const SHARED = [
  into('src-main', 'src-worker', 'src-renderer'),
  'src-shared is imported by all three processes: it imports only packages and src-shared (README, layering).',
];
const WORKER = [
  into('src-main', 'src-renderer'),
  'the engine (src-worker) imports only src-worker, src-shared and packages (README, layering).',
];
const MAIN = [
  into('src-renderer'),
  'the main process does not import the renderer: the two talk through the protocol (src-shared/protocol).',
];
const PROTOCOL_DOOR = [
  '(^|/)protocol/(?!index$)[^/]+$',
  'import the job protocol through its index (src-shared/protocol/index.ts), the one door to its schemas and types.',
];
const ENGINE_DOOR = [
  '(^|/)src-worker/(?!index$)',
  "the main process reaches the engine through its door, src-worker/index.ts (the engine's public API, docs/engine-api.md): export what it needs there.",
];
const RENDERER = [
  into('src-main', 'src-worker'),
  'the renderer talks to the engine only through the protocol and API in src-shared (README, layering); run the computation as a job.',
];

/**
 * The engine's floors, top to bottom (src-worker/<folder>): a folder imports
 * only folders on lower floors, never a sibling on its own floor nor the
 * engine's doors (index.ts, library.ts, worker-entry.ts), so the engine has no import
 * circle. Read as: jobs run everything; the case studies compose the
 * analyses; capacities solve LPs; the LP, the bounds, the remap and audits
 * use measures, checks and data readers; those take mechanisms (channels and
 * their constructions), which use Phi, which uses metrics, which use the
 * kernels (linalg, numeric) and the engine's base (limits, file wording,
 * worker-thread modules).
 */
export const ENGINE_FLOORS = [
  ['jobs'],
  ['casestudy'],
  ['capacity'],
  ['lp', 'bound', 'remap', 'audit'],
  ['data', 'explorer', 'check', 'measure'],
  ['mechanism'],
  ['phi'],
  ['metric'],
  ['linalg', 'numeric', 'base'],
];
const FLOOR_WORDS = ENGINE_FLOORS.map((f) => f.join(', ')).join(' > ');

/**
 * The rooms of src-worker/lp, top to bottom, on the same rule: a room imports its own files and the rooms on lower
 * floors only. Read as: the optimal mechanism (optimal) solves the private-channel LP (channel: the method chosen,
 * constraint generation), which may solve it by decomposition (decomposition: master, dense simplex, rounds); the
 * decomposition prices its columns (pricing: HiGHS or exact pricing, threads, certificates); the LP's model (model:
 * which pairs, symmetry, its rows, the repair into P) and the other LPs (other: regularity, refinement) stand beside
 * pricing; everything runs on HiGHS (solver: runtime, SparseLp, PersistentLp, options, memory estimate). No room is
 * named like an engine folder, so `../<room>` is never read as one (test/unit/house/lint.test.ts).
 */
export const LP_FLOORS = [['optimal'], ['channel'], ['decomposition'], ['pricing', 'model', 'other'], ['solver']];
const LP_WORDS = LP_FLOORS.map((f) => f.join(', ')).join(' > ');

/** The engine folder's forbidden imports: folders on its floor or above, and the engine's doors. */
function enginePatterns(folder) {
  const i = ENGINE_FLOORS.findIndex((floor) => floor.includes(folder));
  const above = ENGINE_FLOORS.slice(0, i + 1)
    .flat()
    .filter((f) => f !== folder);
  const upward = [
    `^(\\.\\./)+(${above.join('|')})(/|$)`,
    `src-worker/${folder}/ sits on floor ${i + 1} of the engine (${FLOOR_WORDS}): it imports only folders on lower floors (eslint.config.js, ENGINE_FLOORS); move what both need down.`,
  ];
  const door = [
    '^(\\.\\./)+(index|library|worker-entry)(\\.ts)?$',
    `src-worker/${folder}/ does not import the engine's doors (src-worker/index.ts, library.ts): import the module itself.`,
  ];
  return above.length ? [WORKER, PROTOCOL_DOOR, upward, door] : [WORKER, PROTOCOL_DOOR, door];
}

/**
 * For each engine folder, the rule that forbids its imports of folders on its floor or above (and of the engine's
 * door).
 */
function floorRules() {
  return ENGINE_FLOORS.flat().map((folder) => ({
    files: [`src-worker/${folder}/**`],
    rules: forbid(enginePatterns(folder)),
  }));
}

/** For each room of src-worker/lp, lp's own rule and the rooms on its floor or above (LP_FLOORS). */
function lpRoomRules() {
  return LP_FLOORS.flatMap((floor, i) =>
    floor.map((room) => {
      const above = LP_FLOORS.slice(0, i + 1)
        .flat()
        .filter((r) => r !== room);
      const upward = [
        `^(\\.\\./)+(${above.join('|')})(/|$)`,
        `src-worker/lp/${room}/ sits on floor ${i + 1} of the LP (${LP_WORDS}): it imports only its own files and lower rooms (eslint.config.js, LP_FLOORS); move what both need down.`,
      ];
      const patterns = above.length ? [...enginePatterns('lp'), upward] : enginePatterns('lp');
      return { files: [`src-worker/lp/${room}/**`], rules: forbid(patterns) };
    }),
  );
}

/**
 * The page's floors, top to bottom: App.svelte and main.ts mount the page; the
 * views (src-renderer/views) show a project item or the whole project; the
 * editors edit one; the components draw what those share (charts, tables,
 * dialogs, the sidebar, the jobs panel); lib holds the app's state, its rooms
 * and the pure helpers. A folder imports its own files and the folders on
 * lower floors only (a view names the room it uses: app.queue, app.files).
 */
export const MAX_LEN = {
  code: 120,
  tabWidth: 2,
  ignoreStrings: true,
  ignoreTemplateLiterals: true,
  ignoreUrls: true,
  ignoreRegExpLiterals: true,
};

/** A line of a Svelte component that is not a comment: Prettier decides its width (below). */
const SVELTE_LAID_OUT_BY_PRETTIER = '^(?!\\s*(//|/\\*|\\*|<!--)).*$';

export const RENDERER_FLOORS = [['App.svelte', 'main.ts'], ['views'], ['editors'], ['components'], ['lib']];
const PAGE_WORDS = RENDERER_FLOORS.map((f) => f.join(', ')).join(' > ');

/**
 * A floor's entry as an import specifier's part: a folder, a Svelte file, or a .ts file (imported with or without its
 * extension).
 */
const entryPattern = (name) => (name.endsWith('.ts') ? `${name.slice(0, -3)}(\\.ts)?` : name.replace(/\./g, '\\.'));

/** For each folder of the page, the rule that forbids its imports of the floors above it. */
function pageFloorRules() {
  return RENDERER_FLOORS.slice(1).flatMap((floor, j) =>
    floor.map((folder) => {
      const i = j + 1;
      const above = RENDERER_FLOORS.slice(0, i + 1)
        .flat()
        .filter((f) => f !== folder);
      const upward = [
        `^(\\.\\./)+(${above.map(entryPattern).join('|')})(/|$)`,
        `src-renderer/${folder}/ sits on floor ${i + 1} of the page (${PAGE_WORDS}): it imports only its own files and lower floors (eslint.config.js, RENDERER_FLOORS); move what both need down.`,
      ];
      return { files: [`src-renderer/${folder}/**`], rules: forbid([RENDERER, PROTOCOL_DOOR, upward]) };
    }),
  );
}
const HOST = [
  '(^|/)(web|electron)(/|$)',
  'src-main/host is shared by both shells (web mode and Electron): it imports neither shell; a shell passes what is its own (dialogs, transfers) in.',
];
const PROJECT = [
  '(^|/)cli(/|$)',
  'src-main/project serves the app and the CLI alike: shared input readers live in src-main/fs, not in cli/.',
];

export default defineConfig(
  {
    // build output, dependencies, test artefacts and CI machinery (resources/ holds data and its generator scripts,
    // linted)
    ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-output/**', '.ci/**', '**/*.d.ts'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  svelte.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: 'module',
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // tsc already reports unused locals and parameters (noUnusedLocals/Parameters, tsconfig.base.json)
      '@typescript-eslint/no-unused-vars': 'off',
      // Non-null assertions mark indices that are provably in range (noUncheckedIndexedAccess); about 1,200 of them
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `catch {}` and `() => {}` callbacks are deliberate no-ops in cancellation and cleanup paths
      '@typescript-eslint/no-empty-function': 'off',
      // The code writes short statement groups as comma sequences, `if (ok) (f.push(i), t.push(j));` (42 places
      // in 25 files); rewriting them as blocks is left to the tree-wide Prettier pass and review, not done here
      '@typescript-eslint/no-unused-expressions': 'off',
      // Flags every Map/Set/Date in a .svelte.ts module, including job bookkeeping that is never rendered and
      // `new Date().toISOString()` stamps; reactive collections in this code are $state, so the rule only misfires
      'svelte/prefer-svelte-reactivity': 'off',
    },
  },
  {
    // A reviewer reads 120 columns (Prettier's printWidth): code and comments fit; a string or template literal may
    // run past it (prose lives in the words files, src-shared/charts/*-words.ts), as may a URL. A source file stays
    // under 700 lines: past that it holds more than one concept.
    files: ['src-worker/**', 'src-main/**', 'src-shared/**', 'src-renderer/**'],
    rules: {
      'max-len': ['error', MAX_LEN],
      'max-lines': ['error', { max: 700, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    // In a Svelte component Prettier lays out the script and the markup; its fill of markup prose around
    // {expressions} and of long attribute values runs a few columns past 120 (21 lines at 121-199 columns, all text
    // or attribute strings, when this rule came in) and wraps back any line broken by hand. So lint holds only the
    // lines Prettier never wraps there: the comments (`//`, `/*`, ` *`, `<!--`).
    files: ['src-renderer/**/*.svelte'],
    rules: { 'max-len': ['error', { ...MAX_LEN, ignorePattern: SVELTE_LAID_OUT_BY_PRETTIER }] },
  },
  {
    // Published Gauss-Kronrod nodes and weights, kept with all their digits as printed in the tables
    files: ['src-worker/mechanism/planar/gauss-kronrod.ts'],
    rules: { 'no-loss-of-precision': 'off' },
  },
  {
    // Redaction strips control characters on purpose
    files: ['src-main/host/redact.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] },
    },
  },
  { files: ['src-renderer/**/*.ts'], languageOptions: { globals: { ...globals.browser } } },
  // Layering (see the header). Later blocks override earlier ones for the same rule.
  { files: ['src-shared/**'], rules: forbid([SHARED, PROTOCOL_DOOR]) },
  { files: ['src-worker/**'], rules: forbid([WORKER, PROTOCOL_DOOR]) },
  ...floorRules(),
  ...lpRoomRules(),
  { files: ['src-main/**'], rules: forbid([MAIN, ENGINE_DOOR, PROTOCOL_DOOR]) },
  { files: ['src-main/project/**'], rules: forbid([MAIN, ENGINE_DOOR, PROTOCOL_DOOR, PROJECT]) },
  { files: ['src-main/host/**'], rules: forbid([MAIN, ENGINE_DOOR, PROTOCOL_DOOR, HOST]) },
  { files: ['src-renderer/**'], rules: forbid([RENDERER, PROTOCOL_DOOR]) },
  ...pageFloorRules(),
);
