/**
 * `mechstudio report`: the study report of a kept study (test/integration/report-fixture.ts), its content asserted
 * against the engine's own results and an independent SHA-256 of every file; a tampered channel reported NOT
 * private whatever its kept check says; a missing input file named; --pdf printed by Chromium; bad input one line.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-run';
import { EPS, writeStudy, type Study } from './report-fixture';
import { findChromium } from '../../src-main/cli/report';
import { ChannelStore } from '../../src-main/dispatcher/channel-store';
import { projectFileText } from '../../src-main/project/bundle';
import { argv } from '../unit/support/argv';

let dir = '';
let study: Study;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ms-report-'));
  study = await writeStudy(dir);
}, 120_000);

const sha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const sig4 = (x: number): string => x.toPrecision(4);
/** The page holds the text (the message names the text, not the whole page). */
const holds = (html: string, text: string): void => expect(html.includes(text), `the report lacks: ${text}`).toBe(true);

describe('mechstudio report', () => {
  it('writes one self-contained page with the inputs hashed, every mechanism checked again, the comparison, releases, audit and budget', async () => {
    const out = join(dir, 'study.html');
    const r = await runCli(argv`report ${study.path} --out ${out} --json --quiet`);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ report: out, mechanisms: 4, rechecked: 3, notPrivate: [] });
    const html = readFileSync(out, 'utf8');
    // self-contained and inert: no script, no outside resource, the project's text escaped
    holds(html, `content="default-src 'none'; img-src data:; style-src 'unsafe-inline'"`);
    expect(/<script|(src|href)="https?:/.test(html)).toBe(false);
    holds(html, 'Downtown &lt;b&gt;study&lt;/b&gt;');
    expect(html).not.toContain('<b>study</b>');
    holds(html, 'the downtown grid &amp; its two hot spots');
    // provenance: the project file and the prior's file, hashed here independently
    holds(html, `SHA-256 ${sha256(study.path)}`);
    holds(html, `${readFileSync(join(dir, 'prior.csv')).length} bytes, SHA-256 ${sha256(join(dir, 'prior.csv'))}`);
    // every kept mechanism: its figures as the engine computed them, its channel checked again at its eps
    for (const id of ['pl', 'tight', 'best']) {
      const m = study.mechanisms[id]!;
      holds(html, `${sig4(m.expectedLoss!)} km`);
      holds(
        html,
        `private at ε = ${sig4(EPS)}: checked for this report (effective ε ${sig4(study.checks[id]!.effectiveEpsilon)})`,
      );
    }
    holds(html, 'optimal: certified');
    holds(html, 'not computed: no channel, no figures and no check in this study');
    // the comparison: its table at 4 significant digits, its chart as a PNG, its maps (prior + 2 rows of 16 cells)
    for (const row of study.compare.rows) holds(html, `${sig4(row.expectedDistance!)} km`);
    holds(html, 'At ε = ln 4 (1.386)');
    const png = /src="data:image\/png;base64,([A-Za-z0-9+/=]+)"/.exec(html);
    expect(Buffer.from(png![1]!, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(html.match(/<svg /g)).toHaveLength(3);
    expect(html.match(/<rect /g)).toHaveLength(3 * 16 + 3);
    // releases, budget (2 x ln 4 of 4 spent), the audit's verdict and witness
    holds(html, 'c'.repeat(64));
    holds(html, 'd'.repeat(64));
    holds(html, `spent ε = ${sig4(2 * EPS)} of 4 (${sig4(4 - 2 * EPS)} left)`);
    holds(html, 'claim refuted:');
    holds(html, `at least ${study.audit.epsilonLowerBound.toPrecision(4)} per unit of distance`);
    holds(html, 'Witness: secrets');
  }, 120_000);

  it('reports a tampered channel NOT private although its kept check says private, and names a missing input file', async () => {
    const sub = mkdtempSync(join(dir, 'tampered-'));
    const s = await writeStudy(sub, 'tampered.json');
    const p = JSON.parse(readFileSync(s.path, 'utf8')) as {
      results: Record<string, { result: { matrix: { data: number[]; cols: number } } }>;
    };
    const m = p.results.pl!.result.matrix;
    for (let j = 0; j < m.cols; j++) m.data[j] = j === 0 ? 1 : 0; // secret 0 always reported as itself
    writeFileSync(s.path, JSON.stringify(p));
    rmSync(join(sub, 'prior.csv'));
    const out = join(sub, 'report.html');
    const r = await runCli(argv`report ${s.path} --out ${out} --quiet`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('NOT PRIVATE  pl');
    const html = readFileSync(out, 'utf8');
    holds(html, 'Not private as claimed: pl');
    holds(
      html,
      `NOT private at ε = ${sig4(EPS)}: the privacy check run for this report measured an effective ε of infinite`,
    );
    holds(html, 'kept check, when computed: effective ε');
    holds(
      html,
      '<code>prior.csv</code></td><td>prior &#39;people&#39; file</td><td><span class="bad">not readable now: no such file',
    );
  }, 120_000);

  it("reads web mode's bundle: the optimal LP's kept channel comes with it and is checked again; without it, it is said not kept here", async () => {
    const sub = mkdtempSync(join(dir, 'bundle-'));
    const s = await writeStudy(sub, 'kept.json');
    // the LP's channel kept by the host (a channelRef, not inline), as the app keeps it
    const store = new ChannelStore();
    const ref = store.put(s.mechanisms.best!.matrix!);
    const chDir = mkdtempSync(join(sub, 'channels-'));
    await store.saveTo(chDir, [ref]);
    const p = JSON.parse(readFileSync(s.path, 'utf8')) as {
      results: Record<string, { result: Record<string, unknown> }>;
    };
    delete p.results.best!.result.matrix;
    p.results.best!.result.channelRef = ref;
    writeFileSync(s.path, JSON.stringify(p));
    const bundle = join(sub, 'kept-bundle.json');
    writeFileSync(bundle, await projectFileText(p, chDir));
    expect(JSON.parse(readFileSync(bundle, 'utf8'))).toHaveProperty('format', 'mechstudio-project-bundle');
    const fromBundle = await runCli(argv`report ${bundle} --out ${join(sub, 'b.html')} --json --quiet`);
    expect(fromBundle.code, fromBundle.stderr).toBe(0);
    expect(JSON.parse(fromBundle.stdout)).toMatchObject({ mechanisms: 4, rechecked: 3, notPrivate: [] });
    const plain = await runCli(argv`report ${s.path} --out ${join(sub, 'p.html')} --json --quiet`);
    expect(JSON.parse(plain.stdout)).toMatchObject({ rechecked: 2 });
    holds(
      readFileSync(join(sub, 'p.html'), 'utf8'),
      'not checked again: its kept channel is not beside the project file (the NAME.channels folder)',
    );
    // a command that writes the project back refuses a bundle with one line
    const apply = await runCli(argv`apply --domain line:3 --epsilon 1 --kind tg --input ${s.path}
      --out ${join(sub, 'o.csv')} --project ${bundle}`);
    expect(apply.code).toBe(2);
    expect(apply.stderr).toContain('is a project bundle (a web-mode download with its kept channels)');
  }, 180_000);

  it.skipIf(findChromium() === null)(
    '--pdf prints the page with Chromium',
    async () => {
      const pdf = join(dir, 'study.pdf');
      const r = await runCli(argv`report ${study.path} --out ${join(dir, 'printed.html')} --pdf ${pdf} --quiet`);
      expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(pdf).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    },
    180_000,
  );

  it('bad input is one line: no --out, no project, no Chromium for --pdf (the HTML still written)', async () => {
    const noOut = await runCli(['report', study.path]);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toBe('mechstudio: report needs --out FILE.html (the report page), e.g. --out study.html\n');
    const none = await runCli(argv`report ${join(dir, 'missing.json')} --out ${join(dir, 'x.html')}`);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^mechstudio: .*missing\.json.*\n$/);
    const html = join(dir, 'nochromium.html');
    const noPdf = await runCli(argv`report ${study.path} --out ${html} --pdf ${join(dir, 'x.pdf')} --quiet`, {
      env: { MECHSTUDIO_CHROMIUM: join(dir, 'no-such-chromium') },
    });
    expect(noPdf.code).toBe(2);
    expect(noPdf.stderr).toMatch(/^mechstudio: --pdf: .*no-such-chromium could not print the report/);
    expect(existsSync(html)).toBe(true);
    expect(existsSync(join(dir, 'x.pdf'))).toBe(false);
  }, 120_000);
});
