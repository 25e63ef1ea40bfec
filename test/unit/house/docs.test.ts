/**
 * The documentation in docs/ is part of the contract:
 *  (a) every "SPEC §n" (and every other §n) cited in the sources (src-*) and
 *      the README resolves to a heading in docs/ whose text carries "§n",
 *      and docs/README.md maps each §n to that heading;
 *  (b) every relative Markdown link in docs/ and README.md points to an
 *      existing file, and links to Markdown headings to an existing anchor
 *      (GitHub's heading slugs);
 *  (c) every reference value written in docs/reference-values.md is
 *      recomputed here through the engine and must match;
 *  (d) the repository cites only what its reader can follow: no issue
 *      numbers and no "session N" work notes in any source, test, script or
 *      doc, every docs/ page, anchor and heading cited anywhere
 *      (`docs/x.md#anchor`, `docs/x.md, "Heading"`) exists, docs/cli.md
 *      names every option of the CLI help, and the README stays an entrance
 *      whose test command is the one CI runs.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseLeakageBound } from '../../../src-worker/bound/database-leakage-bounds';
import { thresholdSearch } from '../../../src-worker/bound/threshold-search';
import { privacyTypeCapacities } from '../../../src-worker/capacity/privacy-type-capacity';
import { enumerateKernelMechanisms } from '../../../src-worker/explorer/kernel-mechanisms';
import { privatePosteriorVertices } from '../../../src-worker/explorer/posterior-vertices';
import type { RowSource } from '../../../src-worker/mechanism/channel';
import { closedFormMechanism } from '../../../src-worker/mechanism/closed-form-by-kind';
import { tightConstraints } from '../../../src-worker/mechanism/tight-constraints';
import { channelMeasures } from '../../../src-worker/measure/channel-measures';
import { uniformPrior } from '../../../src-worker/measure/prior';
import { binaryUtility } from '../../../src-worker/measure/utility';
import { cliqueDomain } from '../../../src-worker/metric/clique';
import { lineDomain } from '../../../src-worker/metric/line';
import { parseDomainSpec } from '../../../src-worker/metric/parse-domain-spec';
import { USAGE } from '../../../src-main/cli/main';

const ROOT = join(__dirname, '../../..');
const DOCS = join(ROOT, 'docs');
const README = join(ROOT, 'README.md');

/* ---------- Markdown helpers ---------- */

/** Every file under dir (recursively) whose name passes `keep`; node_modules and dot-folders skipped. */
function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p, keep));
    else if (keep(name)) out.push(p);
  }
  return out;
}

const docFiles = (): string[] => filesUnder(DOCS, (n) => n.endsWith('.md'));

/** The text with fenced code blocks blanked (line numbers kept). */
function withoutFences(text: string): string[] {
  let inFence = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      return '';
    }
    return inFence ? '' : line;
  });
}

/** Heading texts of a Markdown file (ATX headings outside code fences). */
function headings(file: string): string[] {
  const out: string[] = [];
  for (const line of withoutFences(readFileSync(file, 'utf8'))) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

/**
 * GitHub's anchor for a heading (github-slugger): the rendered text lower-cased,
 * every character that is not a letter, mark, number, connector, space or
 * hyphen removed, spaces turned into hyphens; repeats get -1, -2, ...
 */
function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/[`*]/g, ''); // inline code and emphasis markers
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const h of headings(file)) {
    const base = githubSlug(h);
    const k = seen.get(base) ?? 0;
    out.add(k === 0 ? base : `${base}-${k}`);
    seen.set(base, k + 1);
  }
  return out;
}

/** Relative link targets of a Markdown file, with their line numbers (code fences and inline code ignored). */
function linksOf(file: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  withoutFences(readFileSync(file, 'utf8')).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, '');
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: ...
      out.push({ target, line: i + 1 });
    }
  });
  return out;
}

/* ---------- (a) citations ---------- */

/** Every §n (n with an optional .m) in the sources and the README, with one place each is cited. */
function citations(): { where: Map<string, string>; files: number } {
  const files = [
    ...readdirSync(ROOT)
      .filter((d) => d.startsWith('src-') && statSync(join(ROOT, d)).isDirectory())
      .flatMap((d) => filesUnder(join(ROOT, d), (n) => /\.(ts|mts|js|mjs|svelte|html|md)$/.test(n))),
    README,
  ];
  const where = new Map<string, string>();
  for (const f of files) {
    readFileSync(f, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const m of line.matchAll(/§(\d+(?:\.\d+)?)/g))
          if (!where.has(m[1]!)) where.set(m[1]!, `${relative(ROOT, f)}:${i + 1}`);
      });
  }
  return { where, files: files.length };
}

/** §n -> file#anchor of the docs heading that carries it. */
function sectionHeadings(): Map<string, { file: string; anchor: string }> {
  const out = new Map<string, { file: string; anchor: string }>();
  for (const f of docFiles()) {
    for (const h of headings(f)) {
      for (const m of h.matchAll(/§(\d+(?:\.\d+)?)/g)) {
        const n = m[1]!;
        expect(out.has(n), `§${n} is the marker of two headings: ${out.get(n)?.file} and ${relative(ROOT, f)}`).toBe(
          false,
        );
        out.set(n, { file: relative(DOCS, f), anchor: githubSlug(h) });
      }
    }
  }
  return out;
}

describe('docs: every SPEC § citation resolves to a heading in docs/', () => {
  it('GitHub heading slugs (the anchors links rely on)', () => {
    expect(githubSlug('§5 Regular priors and optimality bounds')).toBe('5-regular-priors-and-optimality-bounds');
    expect(githubSlug('§8.1 Second-round additions')).toBe('81-second-round-additions');
    expect(githubSlug('(a, b)-usefulness')).toBe('a-b-usefulness');
    expect(githubSlug('The `lp` record: [gap](x.md)')).toBe('the-lp-record-gap');
  });

  it('each §n cited in src-* and README.md is a heading marker in docs/', () => {
    const { where: cited, files } = citations();
    const heads = sectionHeadings();
    // the scan really reads the sources (hundreds of files, citations among them)
    expect(files, 'source files scanned').toBeGreaterThan(100);
    expect(cited.size, 'distinct sections cited').toBeGreaterThan(0);
    const missing = [...cited].filter(([n]) => !heads.has(n)).map(([n, at]) => `§${n} (cited at ${at})`);
    expect(missing, 'citations without a docs heading').toEqual([]);
  });

  it('docs/README.md maps every section to its heading', () => {
    const index = readFileSync(join(DOCS, 'README.md'), 'utf8');
    for (const [n, h] of sectionHeadings()) {
      const row = index.split('\n').find((l) => l.startsWith(`| SPEC §${n} |`));
      expect(row, `docs/README.md has no table row for SPEC §${n}`).toBeDefined();
      expect(row, `the row of §${n} links to its heading`).toContain(`](${h.file}#${h.anchor})`);
    }
  });
});

/* ---------- (b) links ---------- */

describe('docs: relative links point to existing files and anchors', () => {
  it('every relative link in docs/ and README.md resolves', () => {
    const bad: string[] = [];
    let checked = 0;
    for (const f of [README, ...docFiles()]) {
      for (const { target, line } of linksOf(f)) {
        checked++;
        const [path, anchor] = target.split('#', 2) as [string, string | undefined];
        const dest = path === '' ? f : resolve(dirname(f), decodeURI(path));
        const at = `${relative(ROOT, f)}:${line} -> ${target}`;
        if (!existsSync(dest)) {
          bad.push(`${at}: no such file`);
          continue;
        }
        if (anchor !== undefined && dest.endsWith('.md') && !anchorsOf(dest).has(decodeURIComponent(anchor)))
          bad.push(`${at}: no heading with that anchor`);
      }
    }
    expect(checked, 'links found (the scan must see the docs cross-references)').toBeGreaterThan(50);
    expect(bad).toEqual([]);
  });

  it('every source path named in docs/ exists (root-relative, or relative to a src-* folder)', () => {
    const roots = readdirSync(ROOT).filter((d) => d.startsWith('src-') && statSync(join(ROOT, d)).isDirectory());
    const bad: string[] = [];
    let checked = 0;
    for (const f of docFiles()) {
      withoutFences(readFileSync(f, 'utf8')).forEach((line, i) => {
        for (const m of line.matchAll(/`([\w.-]+(?:\/[\w.-]+)+\/?)`/g)) {
          const p = m[1]!;
          if (!/\.(ts|svelte|mjs|js|json|md)$/.test(p) && !p.endsWith('/')) continue; // a path, not e.g. a/b in prose
          // build output, a command's output folder, test artefacts: absent until made
          if (/^(out|DIR|test-output)\//.test(p)) continue;
          checked++;
          if (existsSync(join(ROOT, p)) || roots.some((r) => existsSync(join(ROOT, r, p)))) continue;
          bad.push(`${relative(ROOT, f)}:${i + 1}: ${p}`);
        }
      });
    }
    expect(checked, 'source paths found').toBeGreaterThan(50);
    expect(bad, 'paths named in docs/ that do not exist').toEqual([]);
  });

  it('the link checker catches a missing file and a missing anchor', () => {
    // the README's own headings, as the checker sees them
    expect(anchorsOf(README).has('command-line')).toBe(true);
    expect(anchorsOf(README).has('no-such-heading')).toBe(false);
    expect(existsSync(resolve(DOCS, 'no-such-page.md'))).toBe(false);
  });
});

/* ---------- (c) reference values ---------- */

const LN2 = Math.LN2;

function firstRow(src: RowSource): number[] {
  return Array.from(src.row(0, new Float64Array(src.cols)));
}

/** Every reference value of docs/reference-values.md, recomputed through the engine. */
async function computedReferenceValues(): Promise<Map<string, number | number[]>> {
  const v = new Map<string, number | number[]>();
  for (let N = 2; N <= 6; N++) {
    const c = await privacyTypeCapacities(lineDomain(N), LN2);
    v.set(`line-${N}-multiplicative`, c.multiplicative);
    v.set(`line-${N}-additive`, c.additive);
  }
  for (let n = 2; n <= 5; n++)
    v.set(`clique-${n}-multiplicative`, (await privacyTypeCapacities(cliqueDomain(n), LN2)).multiplicative);
  for (let N = 2; N <= 5; N++) {
    const pv = privatePosteriorVertices(lineDomain(N), LN2);
    const k = enumerateKernelMechanisms(pv);
    v.set(`line-${N}-vertices`, pv.count);
    v.set(`line-${N}-kernels`, k.count);
    v.set(`line-${N}-kernels-full-rank`, k.bySize[N] ?? 0);
  }
  const clique6 = parseDomainSpec('clique:6');
  const rr = closedFormMechanism('rr', clique6, LN2);
  const rrRow = firstRow(rr.channel);
  v.set('rr-clique-6-diagonal', rrRow[0]!);
  v.set('rr-clique-6-off-diagonal', rrRow[1]!);
  v.set('rr-clique-6-utility', binaryUtility(uniformPrior(6), rr.channel).value);
  const tg = closedFormMechanism('tg', parseDomainSpec('line:6'), LN2);
  v.set('tg-line-6-first-row', firstRow(tg.channel));
  v.set('tg-line-6-utility', binaryUtility(uniformPrior(6), tg.channel).value);
  v.set('tg-line-6-leakage', channelMeasures(uniformPrior(6), tg.channel).leakage);
  const ring6 = parseDomainSpec('ring:6');
  const sym = closedFormMechanism('symmetric', ring6, LN2);
  v.set('symmetric-ring-6-first-row', firstRow(sym.channel));
  v.set('symmetric-ring-6-utility', binaryUtility(uniformPrior(6), sym.channel).value);
  const tight = tightConstraints(ring6, LN2);
  if (!tight.exists) throw new Error('the tight-constraints mechanism on ring:6 at ln 2 should exist');
  v.set('tight-ring-6-utility', binaryUtility(uniformPrior(6), tight.mechanism.channel).value);
  v.set('database-leakage-5-4-0.5', databaseLeakageBound(5, 4, 0.5));
  const th = thresholdSearch(parseDomainSpec('grid:4x4')).epsilon;
  if (th === null) throw new Error('grid:4x4 should have a tight-constraints threshold');
  v.set('threshold-grid-4x4', th);
  return v;
}

/** A written value: p/q or an integer (to 1e-7), or a decimal (to half a unit of its last digit). */
function parseWritten(text: string): { value: number; tol: number } {
  const t = text.trim();
  let m = /^(-?\d+)\s*\/\s*(\d+)$/.exec(t);
  if (m) return { value: Number(m[1]) / Number(m[2]), tol: 1e-7 };
  m = /^-?\d+$/.exec(t);
  if (m) return { value: Number(t), tol: 1e-7 };
  m = /^-?\d+\.(\d+)$/.exec(t);
  if (m) return { value: Number(t), tol: 0.5 * 10 ** -m[1]!.length + 1e-15 };
  throw new Error(`not a reference value: '${text}'`);
}

/** key -> written value cell of every table row whose first cell is a `key`. */
function documentedReferenceValues(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of withoutFences(readFileSync(join(DOCS, 'reference-values.md'), 'utf8'))) {
    const m = /^\|\s*`([^`]+)`\s*\|.*\|\s*([^|]+?)\s*\|\s*$/.exec(line);
    if (!m) continue;
    expect(out.has(m[1]!), `key ${m[1]} appears twice`).toBe(false);
    out.set(m[1]!, m[2]!);
  }
  return out;
}

/** Differences between what the docs say and what the engine computes (empty when they agree). */
function referenceMismatches(documented: Map<string, string>, computed: Map<string, number | number[]>): string[] {
  const bad: string[] = [];
  for (const key of computed.keys())
    if (!documented.has(key)) bad.push(`${key}: computed by the test but not in docs/reference-values.md`);
  for (const [key, text] of documented) {
    const got = computed.get(key);
    if (got === undefined) {
      bad.push(`${key}: in docs/reference-values.md but not recomputed by the test`);
      continue;
    }
    const written = text.split(',').map(parseWritten);
    const values = Array.isArray(got) ? got : [got];
    if (written.length !== values.length) {
      bad.push(`${key}: ${written.length} values written, ${values.length} computed`);
      continue;
    }
    written.forEach((w, i) => {
      const g = values[i]!;
      if (!(Math.abs(g - w.value) <= w.tol)) bad.push(`${key}[${i}]: docs say ${w.value}, the engine gives ${g}`);
    });
  }
  return bad;
}

describe('docs: SPEC §7 reference values agree with the engine', () => {
  it('parses written values with the precision they are written to', () => {
    expect(parseWritten('8/3')).toEqual({ value: 8 / 3, tol: 1e-7 });
    expect(parseWritten('2.5226').tol).toBeCloseTo(5e-5, 12);
    expect(() => parseWritten('about 2')).toThrow();
  });

  it('every value in docs/reference-values.md is what the engine computes', async () => {
    const documented = documentedReferenceValues();
    expect(documented.size, 'reference rows found').toBeGreaterThanOrEqual(30);
    const computed = await computedReferenceValues();
    expect(referenceMismatches(documented, computed)).toEqual([]);
  });

  it('the comparison fails on a wrong number, a wrong digit and a missing row', () => {
    const computed = new Map<string, number | number[]>([
      ['a', 5 / 6],
      ['b', 2.5226177],
      ['c', [1, 2]],
    ]);
    expect(referenceMismatches(new Map(Object.entries({ a: '5/6', b: '2.5226', c: '1, 2' })), computed)).toEqual([]);
    expect(referenceMismatches(new Map(Object.entries({ a: '4/5', b: '2.5226', c: '1, 2' })), computed)).toHaveLength(
      1,
    );
    expect(referenceMismatches(new Map(Object.entries({ a: '5/6', b: '2.5227', c: '1, 2' })), computed)).toHaveLength(
      1,
    );
    expect(referenceMismatches(new Map(Object.entries({ a: '5/6', c: '1, 2' })), computed)).toHaveLength(1);
    expect(
      referenceMismatches(new Map(Object.entries({ a: '5/6', b: '2.5226', c: '1, 2, 3' })), computed),
    ).toHaveLength(1);
  });
});

/* ---------- (d) what a reader of the repository can follow ---------- */

/** Text files a reader of the repository reads: sources, tests, scripts, docs, the READMEs and the CI entry. */
function repositoryTextFiles(): string[] {
  const text = (n: string) => /\.(ts|mts|js|mjs|cjs|svelte|html|md|json|css|sh|wat)$/.test(n) || n === 'run';
  const dirs = readdirSync(ROOT).filter(
    (d) => /^(src-.*|test|docs|scripts|bin|resources|\.ci)$/.test(d) && statSync(join(ROOT, d)).isDirectory(),
  );
  const top = readdirSync(ROOT).filter((n) => /\.(md|js|mjs|ts)$/.test(n) && statSync(join(ROOT, n)).isFile());
  return [...dirs.flatMap((d) => filesUnder(join(ROOT, d), text)), ...top.map((n) => join(ROOT, n))];
}

/** Dated work notes and tracker citations: a reader of the repository cannot follow either. */
const UNFOLLOWABLE: { what: string; re: RegExp }[] = [
  {
    what: 'an issue-number citation (say the reason, or cite a docs/ heading)',
    re: /\bissues?[\s_-]*#?\d+|\(#\d+\)/gi,
  },
  { what: 'a "session N" work note (describe the design and what was measured)', re: /\bsessions?\s+\d+/gi },
];

function unfollowable(text: string): string[] {
  const out: string[] = [];
  for (const { what, re } of UNFOLLOWABLE) for (const m of text.matchAll(re)) out.push(`${what}: '${m[0]}'`);
  return out;
}

/** The text as one line: comment leaders (` * `, `//`) dropped and whitespace collapsed, so a citation may wrap. */
function asOneLine(text: string): string {
  return text
    .split('\n')
    .map((l) => l.replace(/^\s*(\/\/+|\/?\*+\/?|#)?\s*/, ''))
    .join(' ')
    .replace(/\s+/g, ' ');
}

/**
 * Citations of docs pages: `docs/x.md#anchor`, `docs/x.md, "Heading"` (optionally `under "Heading"`), or a bare
 * `docs/x.md`.
 */
function docsCitations(text: string): { page: string; anchor?: string; headings: string[]; at: string }[] {
  const out: { page: string; anchor?: string; headings: string[]; at: string }[] = [];
  const re = /(?<![\w/.-])docs\/([\w-]+\.md)(?:#([\w-]+))?(?:,\s*"([^"]+)"(?:\s+under\s+"([^"]+)")?)?/g;
  for (const m of asOneLine(text).matchAll(re)) {
    out.push({
      page: m[1]!,
      anchor: m[2],
      headings: [m[3], m[4]].filter((h): h is string => h !== undefined),
      at: m[0],
    });
  }
  return out;
}

/** Run-in headings of a Markdown file: a paragraph or list item that opens in bold (`**The CSV dialect** of ...`). */
function runInHeadings(file: string): string[] {
  const out: string[] = [];
  for (const line of withoutFences(readFileSync(file, 'utf8'))) {
    const m = /^\s*(?:[-*]\s+)?\*\*([^*]+?)\.?\*\*/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

/** What is wrong with each docs citation in a text (empty when every page, anchor and heading exists). */
function unresolvedDocsCitations(text: string): string[] {
  const bad: string[] = [];
  for (const c of docsCitations(text)) {
    const page = join(DOCS, c.page);
    if (!existsSync(page)) {
      bad.push(`${c.at}: no such page`);
      continue;
    }
    const anchors = anchorsOf(page);
    if (c.anchor !== undefined && !anchors.has(c.anchor)) bad.push(`${c.at}: no heading with that anchor`);
    const places = new Set([...anchors, ...runInHeadings(page).map(githubSlug)]);
    for (const h of c.headings)
      if (!places.has(githubSlug(h))) bad.push(`${c.at}: no heading "${h}" in docs/${c.page}`);
  }
  return bad;
}

describe('docs: the repository cites what a reader can follow', () => {
  it('the checks catch an issue number, a session note and a docs citation that does not resolve', () => {
    // built from pieces so that this file itself stays clean
    const iss = 'iss' + 'ue';
    expect(unfollowable(`// ${iss} 14: the remap`)).toHaveLength(1);
    expect(unfollowable(`(see ${iss} #13)`)).toHaveLength(1);
    expect(unfollowable(`'${iss}15-sweep.png'`)).toHaveLength(1);
    expect(unfollowable(`${'Sess' + 'ion'} 8: coarse start`)).toHaveLength(1);
    expect(unfollowable('a web session keeps its jobs; issues are tracked elsewhere')).toEqual([]);
    expect(unresolvedDocsCitations('see docs/lp.md, "Coarse start"')).toEqual([]);
    expect(unresolvedDocsCitations(' * (docs/lp.md, "The\n * master\'s solver")')).toEqual([]);
    expect(unresolvedDocsCitations('docs/lp-measurements.md, "Pricing"')).toEqual([]);
    expect(unresolvedDocsCitations('docs/lp.md#coarse-start')).toEqual([]);
    expect(unresolvedDocsCitations('(docs/cli-and-formats.md, "The CSV dialect")')).toEqual([]);
    expect(unresolvedDocsCitations('docs/lp.md, "Coarse begin"')).toHaveLength(1);
    expect(unresolvedDocsCitations('docs/lp.md#coarse-begin')).toHaveLength(1);
    expect(unresolvedDocsCitations('docs/no-such-page.md')).toHaveLength(1);
  });

  it('no file cites an issue number or carries a "session N" note', () => {
    const files = repositoryTextFiles();
    expect(files.length, 'files scanned').toBeGreaterThan(300);
    const bad = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) => unfollowable(line).map((w) => `${relative(ROOT, f)}:${i + 1}: ${w}`)),
    );
    expect(bad).toEqual([]);
  });

  it('every docs/ page, anchor and heading cited in the repository exists', () => {
    let cited = 0;
    const bad: string[] = [];
    for (const f of repositoryTextFiles()) {
      if (f === __filename) continue; // its own examples of bad citations
      const text = readFileSync(f, 'utf8');
      cited += docsCitations(text).length;
      for (const b of unresolvedDocsCitations(text)) bad.push(`${relative(ROOT, f)}: ${b}`);
    }
    expect(cited, 'docs citations found').toBeGreaterThan(30);
    expect(bad).toEqual([]);
  });

  it('the README is an entrance: short, install-and-start and the tests first, the test command the one CI runs', () => {
    const readme = readFileSync(README, 'utf8').split('\n');
    expect(readme.length, 'README lines (the manual lives in docs/)').toBeLessThan(200);
    const commands = readme.filter((l) => /^ {4}\S/.test(l)).map((l) => l.trim());
    expect(commands.slice(0, 2)).toEqual(['npm install && npm start', 'npm test']);
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    expect(ci.at(-1), 'the last command of .ci/run').toBe(commands[1]);
  });

  it('docs/cli.md names every option of the CLI help', () => {
    const manual = readFileSync(join(DOCS, 'cli.md'), 'utf8');
    const flags = new Set([...USAGE.matchAll(/--[a-z][a-z-]*/g)].map((m) => m[0]));
    expect(flags.size, 'options in the help').toBeGreaterThan(25);
    expect(
      [...flags].filter((f) => !manual.includes(`\`${f}`) && !manual.includes(` ${f}`) && !manual.includes(`[${f}`)),
    ).toEqual([]);
  });
});
