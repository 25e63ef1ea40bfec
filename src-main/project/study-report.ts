/**
 * The study report made on the Node side, for the CLI (`mechstudio report`) and the app (the Report button, through
 * the host): every file the project refers to read and hashed now, every kept channel's privacy checked again now
 * (at the eps its result claims, on its domain as the project gives it), the comparisons' charts drawn to PNG, and
 * the record rendered to one HTML page (src-shared/report/). Nothing the project file says about privacy is taken
 * on trust: a kept check is shown as recorded, beside the check run for the report.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { CheckRequest, CheckResult, DomainInput, Project } from '../../src-shared/protocol/index';
import {
  buildStudyReport,
  type Recheck,
  type ReportFile,
  type StudyReport,
} from '../../src-shared/report/study-report';
import { studyReportHtml, type ReportImages } from '../../src-shared/report/report-html';
import { compareChart } from '../../src-shared/charts/compare-report';
import { messageOf } from '../../src-shared/errors';
import { projectFileRefs, resolveProjectFiles } from './resolve-files';

/** What the report's maker can do: run a privacy check, find kept channels, and what the app knows of its results. */
interface ReportMaker {
  /** The folder the project's relative files are read from. */
  baseDir: string;
  /** The project file itself (hashed into the report), when there is one. */
  projectPath?: string;
  /** Runs a check job (the pool); absent: no channel is checked again. */
  runCheck?: (request: CheckRequest) => Promise<CheckResult>;
  /** Whether a kept channel id can be found (the channel store, with the project's NAME.channels folder). */
  hasChannel?: (channelRef: string) => Promise<boolean>;
  /** The app's view of each kept result (the inputs' hash compared). */
  states?: Record<string, 'current' | 'stale'>;
  tool: string;
  now?: Date;
  /**
   * Where a file the project names may be read (web mode: inside the workspace); throws with the reason when it may
   * not.
   */
  placeFile?: (file: string, what: string) => Promise<string>;
  /**
   * How far the report is (the files hashed, then each kept channel checked again: the long part on large channels).
   */
  onProgress?: (fraction: number, message: string) => void;
  /** Draw charts (default: Chart.js on a Node canvas); tests may pass a stand-in. */
  drawChart?: (spec: ReturnType<typeof compareChart>) => Buffer;
}

/** A file's size and SHA-256 as read now (streamed), or why it could not be read. */
async function fileRecordNow(path: string, role: string, shownAs = basename(path)): Promise<ReportFile> {
  try {
    const st = await stat(path);
    if (!st.isFile()) return { role, name: shownAs, ok: false, problem: 'not a regular file' };
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of createReadStream(path)) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    return { role, name: shownAs, ok: true, size, sha256: hash.digest('hex') };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { role, name: shownAs, ok: false, problem: code === 'ENOENT' ? 'no such file' : messageOf(e) };
  }
}

/**
 * The eps a kept mechanism claims: its construction's guarantee when weaker than asked (row-normalised Laplace), else
 * the eps asked.
 */
function claimedEpsilon(asked: number, guaranteed: number | null): number {
  return guaranteed !== null && guaranteed > asked ? guaranteed : asked;
}

async function recheckOne(project: Project, resolved: Project, id: string, maker: ReportMaker): Promise<Recheck> {
  const kept = project.results?.[id];
  const m = project.mechanisms.find((x) => x.id === id)!;
  const r = kept?.result;
  if (!kept || r?.type !== 'mechanism') return { kind: 'not-rechecked', reason: 'not-computed' };
  if (!maker.runCheck) return { kind: 'not-rechecked', reason: 'no-checker' };
  const domain = resolved.domains.find((d) => d.id === m.domain)!.domain as DomainInput;
  const epsilon = claimedEpsilon(m.epsilon, r.guaranteedEpsilon);
  let req: CheckRequest;
  if (r.matrix) req = { type: 'check', channel: r.matrix, domain, epsilon, maxViolations: 1 };
  else if (r.channelRef) {
    if (maker.hasChannel && !(await maker.hasChannel(r.channelRef)))
      return { kind: 'not-rechecked', reason: 'not-kept-here' };
    req = { type: 'check', channelRef: r.channelRef, domain, epsilon, maxViolations: 1 };
  } else return { kind: 'not-rechecked', reason: 'no-channel' };
  try {
    const c = await maker.runCheck(req);
    return { kind: 'checked', check: { private: c.private, effectiveEpsilon: c.effectiveEpsilon, epsilon: c.epsilon } };
  } catch (e) {
    return { kind: 'failed', message: messageOf(e).split('\n')[0]! };
  }
}

async function defaultDrawChart(spec: ReturnType<typeof compareChart>): Promise<Buffer> {
  const { renderChartPng } = await import('../charts/render-chart');
  return renderChartPng(spec, 1000, 420);
}

/** The report's record and its page. */
export async function makeStudyReport(
  project: Project,
  maker: ReportMaker,
): Promise<{ report: StudyReport; html: string }> {
  let resolved: Project;
  try {
    resolved = resolveProjectFiles(project, maker.baseDir);
  } catch {
    resolved = project; // a file that cannot be read is named in the files table; its checks fail with its message
  }
  maker.onProgress?.(0, 'reading and hashing the files the project names');
  // every file the project names, placed by the policy first: one refused is named, and a domain reading it is not
  // checked
  const refused = new Map<string, string>();
  const files = await Promise.all(
    projectFileRefs(project, maker.baseDir).map(async (f): Promise<ReportFile> => {
      let at = f.file;
      try {
        if (maker.placeFile) at = await maker.placeFile(f.file, f.what);
      } catch (e) {
        refused.set(f.what, messageOf(e));
        return { role: f.what, name: basename(f.file), ok: false, problem: messageOf(e) };
      }
      return fileRecordNow(at, f.what, basename(f.file));
    }),
  );
  const rechecks: Record<string, Recheck> = {};
  for (const [k, m] of project.mechanisms.entries()) {
    maker.onProgress?.(
      0.1 + (0.8 * k) / Math.max(1, project.mechanisms.length),
      `checking the kept channel of ${m.id} again`,
    );
    const why = refused.get(`domain '${m.domain}' file`);
    rechecks[m.id] = why ? { kind: 'failed', message: why } : await recheckOne(project, resolved, m.id, maker);
  }
  const report = buildStudyReport(project, {
    generatedAt: (maker.now ?? new Date()).toISOString(),
    tool: maker.tool,
    ...(maker.projectPath ? { projectFile: await fileRecordNow(maker.projectPath, 'the project') } : {}),
    files,
    rechecks,
    ...(maker.states ? { states: maker.states } : {}),
  });
  const images: ReportImages = {};
  for (const c of report.comparisons) {
    if (!c.result || c.result.rows.length === 0) continue;
    const spec = compareChart(c.result, c.id);
    const png = maker.drawChart ? maker.drawChart(spec) : await defaultDrawChart(spec);
    images[c.id] = `data:image/png;base64,${png.toString('base64')}`;
  }
  return { report, html: studyReportHtml(report, images) };
}
