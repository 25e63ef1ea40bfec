/**
 * `mechstudio report PROJECT.json --out study.html [--pdf study.pdf] [--json]`: the study report of a project
 * (src-main/project/study-report.ts): one self-contained HTML page, and with --pdf the same page printed by a
 * headless Chromium (MECHSTUDIO_CHROMIUM, else chromium / chromium-browser / google-chrome on the PATH). Every kept
 * channel is checked again on the local pool (its project's NAME.channels folder read like the app's).
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, mkdtempSync, openSync, readSync, closeSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MechError, invalid } from '../../src-shared/errors';
import { foundNotPrivate } from '../../src-shared/charts/report-words';
import { Dispatcher } from '../dispatcher/dispatcher';
import { channelFolderOf } from '../dispatcher/channel-store';
import { checkWriteTarget, readRegularFileSync, writeFileAtomic } from '../fs/safe-fs';
import { packageVersion } from '../fs/package-version';
import { MAX_PROJECT_BYTES, loadProject } from '../project/project-file';
import { unpackProjectFile } from '../project/bundle';
import { makeStudyReport } from '../project/study-report';
import { Flags, type ParsedArgs } from './args';
import type { ProgressStream } from './progress';

export interface PlannedReport {
  project: string;
  out: string;
  pdf?: string;
}

/** `mechstudio report`: its flags checked, the project read and validated before anything runs. */
export function planReport(args: ParsedArgs): { report: PlannedReport; json: boolean; print: false } {
  const f = new Flags(args, ['out', 'pdf', 'json', 'quiet']);
  if (args.positional.length !== 1)
    invalid('report needs exactly one PROJECT.json (e.g. mechstudio report study.json --out study.html)');
  const project = resolve(args.positional[0]!);
  const outText = f.str('out');
  if (outText === undefined || outText === '')
    invalid('report needs --out FILE.html (the report page), e.g. --out study.html');
  const out = resolve(outText);
  checkWriteTarget(out, '--out file');
  const pdfText = f.str('pdf');
  if (pdfText === '') invalid('--pdf needs a file name (e.g. --pdf study.pdf)');
  const pdf = pdfText === undefined ? undefined : resolve(pdfText);
  if (pdf !== undefined) checkWriteTarget(pdf, '--pdf file');
  loadProject(project); // a bad project is one line now, before the pool starts
  return { report: { project, out, ...(pdf ? { pdf } : {}) }, json: f.bool('json'), print: false };
}

/** The Chromium the PDF is printed with: MECHSTUDIO_CHROMIUM, else the first of the usual names on the PATH. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  const given = env.MECHSTUDIO_CHROMIUM;
  if (given) return given;
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean))
    for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {
        /* not here */
      }
    }
  return null;
}

/** Print an HTML file to PDF with headless Chromium (its own throw-away profile); checked to be a PDF. */
async function printPdf(htmlPath: string, pdfPath: string, chromium: string): Promise<void> {
  const profile = mkdtempSync(join(tmpdir(), 'mechstudio-pdf-'));
  const args = [
    '--headless',
    '--disable-gpu',
    '--no-sandbox',
    `--user-data-dir=${profile}`,
    '--no-pdf-header-footer',
    `--print-to-pdf=${pdfPath}`,
  ];
  try {
    await new Promise<void>((done, fail) =>
      execFile(chromium, [...args, pathToFileURL(htmlPath).href], { timeout: 120_000 }, (e, _out, err) =>
        e
          ? fail(
              new MechError(
                'invalid-input',
                `--pdf: ${chromium} could not print the report (${String(err || e.message).split('\n')[0]})`,
              ),
            )
          : done(),
      ),
    );
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
  const head = Buffer.alloc(5);
  let ok: boolean;
  try {
    const fd = openSync(pdfPath, 'r');
    readSync(fd, head, 0, 5, 0);
    closeSync(fd);
    ok = head.toString('latin1') === '%PDF-' && statSync(pdfPath).size > 100;
  } catch {
    ok = false;
  }
  if (!ok) throw new MechError('invalid-input', `--pdf: ${chromium} ended without writing a PDF to ${pdfPath}`);
}

const toolName = (): string => `Mechanism Studio ${packageVersion() ?? ''}`.trim();

/** Make the report: the pool checks every kept channel again; the page is written, then printed when asked. */
export async function runReport(
  r: PlannedReport,
  json: boolean,
  stdout: ProgressStream,
  threads: number,
  progress?: { update(fraction: number | null, message: string): void; clear(): void },
): Promise<number> {
  const project = loadProject(r.project);
  const dispatcher = new Dispatcher({ threads });
  dispatcher.channels.addFolder(channelFolderOf(r.project));
  // a bundle (web mode's download) carries its kept channels: unpacked into a private folder the store reads (and
  // checks)
  const unpacked = mkdtempSync(join(tmpdir(), 'mechstudio-report-'));
  await unpackProjectFile(readRegularFileSync(r.project, 'project', MAX_PROJECT_BYTES), r.project, unpacked);
  dispatcher.channels.addFolder(unpacked);
  try {
    const made = await makeStudyReport(project, {
      baseDir: dirname(r.project),
      projectPath: r.project,
      tool: toolName(),
      runCheck: async (req) => {
        const res = await dispatcher.run(req);
        if (res.type !== 'check') throw new MechError('internal', 'a check job answered with another result');
        return res;
      },
      hasChannel: async (id) => (await dispatcher.channels.locate(id)).ok,
      ...(progress ? { onProgress: (f: number, m: string) => progress.update(f, m) } : {}),
    });
    progress?.clear();
    writeFileAtomic(r.out, made.html, '--out file');
    if (r.pdf) {
      const chromium = findChromium();
      if (!chromium)
        throw new MechError(
          'invalid-input',
          `--pdf needs Chromium (none found: set MECHSTUDIO_CHROMIUM to its path); the HTML report was written to ${r.out}`,
        );
      await printPdf(r.out, r.pdf, chromium);
    }
    const flagged = made.report.mechanisms.filter(foundNotPrivate).map((m) => m.id);
    const rechecked = made.report.mechanisms.filter((m) => m.recheck.kind === 'checked').length;
    if (json) {
      stdout.write(
        JSON.stringify({
          report: r.out,
          ...(r.pdf ? { pdf: r.pdf } : {}),
          mechanisms: made.report.mechanisms.length,
          rechecked,
          notPrivate: flagged,
        }) + '\n',
      );
    } else {
      stdout.write(`report       ${r.out}\n`);
      if (r.pdf) stdout.write(`pdf          ${r.pdf}\n`);
      stdout.write(
        `mechanisms   ${made.report.mechanisms.length} (${rechecked} kept channels checked again for the report)\n`,
      );
      if (flagged.length) stdout.write(`NOT PRIVATE  ${flagged.join(', ')}\n`);
    }
    return 0;
  } finally {
    await dispatcher.close().catch(() => undefined);
    rmSync(unpacked, { recursive: true, force: true });
  }
}
