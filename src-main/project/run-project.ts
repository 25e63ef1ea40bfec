/**
 * `mechstudio run PROJECT.json --out DIR`: every mechanism and analysis of a
 * project as its own job on the pool (in parallel, each failure isolated),
 * then DIR/channels/ID.csv for each mechanism (streamed by the worker),
 * DIR/analyses/ID.json and ID.csv for each analysis, and DIR/summary.md.
 */
import { setMaxListeners } from 'node:events';
import { unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { MechError, messageOf } from '../../src-shared/errors';
import { ensureDir, prepareWrite, publishTemp } from '../fs/safe-fs';
import {
  type JobRequest,
  type JobResult,
  type MechanismResult,
  type Project,
  ApiError,
  type CaseStudyResult,
  type ChartSpec,
} from '../../src-shared/protocol/index';
import { planProject } from '../../src-worker/index';
import type { JobRunner } from '../dispatcher/job-runner';
import { writeFileAtomic } from './project-file';
import { resolveProjectFiles } from './resolve-files';
import { fmt, resultTable, tableToCsv } from '../../src-shared/charts/result-table';
import { renderChartPng } from '../charts/render-chart';
import { caseStudyDetailWords, caseStudyFindingWords } from '../../src-shared/charts/casestudy-words';
import { resultNoteLines } from '../../src-shared/charts/note-words';
import { lossWords, sweepCharts } from '../../src-shared/charts/sweep-charts';
import { runFannedOut } from '../dispatcher/fan-out';

interface RunItem {
  id: string;
  group: 'mechanisms' | 'analyses' | 'caseStudies';
  type: string;
  ok: boolean;
  result?: JobResult;
  error?: { code: string; message: string };
  files: string[];
}

export interface RunSummary {
  name: string;
  out: string;
  files: string[];
  items: RunItem[];
  failed: number;
}

export async function runProject(
  dispatcher: JobRunner,
  project: Project,
  baseDir: string,
  outDir: string,
  opts: {
    signal?: AbortSignal;
    onProgress?: (fraction: number, message: string) => void;
    resolved?: Project;
    /** Split each sweep into this many eps slices run at once (fan-out.ts; default: the runner's threads). */
    sweepParts?: number;
  } = {},
): Promise<RunSummary> {
  // one abort listener per parallel job
  if (opts.signal) setMaxListeners(0, opts.signal);
  // `resolved`: the caller already resolved the project's csv: files (the CLI does, before starting workers)
  const resolved = opts.resolved ?? resolveProjectFiles(project, baseDir);
  const plan: { id: string; group: RunItem['group']; request: JobRequest }[] = [
    // case studies first: they are the long jobs, so the pool starts them early
    ...(resolved.caseStudies ?? []).map((c) => ({
      id: c.id,
      group: 'caseStudies' as const,
      request: { type: 'case-study' as const, study: c.study, ...(c.params ? { params: c.params } : {}) },
    })),
    ...planProject(resolved),
  ];
  const single = (resolved.caseStudies ?? []).length === 1;
  const out = ensureDir(outDir, 'output directory');
  ensureDir(join(out, 'channels'), 'output directory');
  ensureDir(join(out, 'analyses'), 'output directory');
  let finished = 0;
  const items = await Promise.all(
    plan.map(async (p): Promise<RunItem> => {
      const item: RunItem = { id: p.id, group: p.group, type: p.request.type, ok: false, files: [] };
      let request: JobRequest = p.request;
      // a mechanism's channel: the worker streams it to a temp file next to the final one, published when complete
      let csv: { path: string; tmp: string } | null = null;
      try {
        if (request.type === 'mechanism') {
          const path = join(out, 'channels', `${p.id}.csv`);
          csv = { path, tmp: prepareWrite(path, 'channel CSV') };
          request = { ...request, out: csv.tmp, inlineLimit: 0 };
        }
        const result = await runFannedOut(
          dispatcher,
          request,
          opts.sweepParts ?? dispatcher.threads,
          opts.signal ? { signal: opts.signal } : {},
        );
        if (result.type === 'mechanism' && csv && result.csvPath) {
          publishTemp(result.csvPath, csv.path, 'channel CSV');
          result.csvPath = csv.path;
        }
        item.ok = true;
        item.result = result;
        if (result.type === 'mechanism') {
          if (result.csvPath) item.files.push(result.csvPath);
        } else if (result.type === 'case-study') {
          item.files.push(...writeCaseStudy(out, p.id, result, single));
        } else {
          const base = join(out, 'analyses', p.id);
          writeFileAtomic(`${base}.json`, JSON.stringify(result, null, 2) + '\n');
          writeFileAtomic(`${base}.csv`, tableToCsv(resultTable(result)));
          item.files.push(`${base}.json`, `${base}.csv`);
          if (result.type === 'sweep') {
            // sweeps are curves: also as a chart
            ensureDir(join(out, 'charts'), 'output directory');
            // the first chart (the chosen loss when one was given, else utility) is ID.png, the others ID-<what>.png
            sweepChartsOf(
              p.id,
              result,
              project.analyses?.find((x) => x.id === p.id),
            ).forEach((spec, k) => {
              const png = join(out, 'charts', k === 0 ? `${p.id}.png` : `${spec.id}.png`);
              writeFileAtomic(png, renderChartPng(spec), 'chart');
              item.files.push(png);
            });
          }
        }
      } catch (e) {
        if ((e instanceof ApiError || e instanceof MechError) && e.code === 'cancelled') throw e;
        item.ok = false;
        item.error = {
          code: e instanceof ApiError || e instanceof MechError ? e.code : 'internal',
          message: messageOf(e),
        };
      } finally {
        if (csv)
          for (const t of [csv.tmp, `${csv.tmp}.partial`]) {
            try {
              unlinkSync(t);
            } catch {
              /* published, or never written */
            }
          }
      }
      finished++;
      opts.onProgress?.(
        finished / plan.length,
        `${p.group === 'caseStudies' ? 'case study' : p.group.slice(0, -1)} ${p.id} ${item.ok ? 'done' : 'failed'}`,
      );
      return item;
    }),
  );
  const summaryPath = join(out, 'summary.md');
  writeFileAtomic(summaryPath, summaryMarkdown(project, items), 'summary');
  const files = [...items.flatMap((i) => i.files), summaryPath];
  return { name: project.name, out, files, items, failed: items.filter((i) => !i.ok).length };
}

/**
 * A sweep analysis as charts (sweep-charts.ts, the app's): the chosen loss, utility and leakage against eps with the
 * bounds on top.
 */
function sweepChartsOf(id: string, r: Extract<JobResult, { type: 'sweep' }>, a: unknown): ChartSpec[] {
  const loss = (a as { loss?: unknown } | undefined)?.loss;
  return sweepCharts(r, { id, xLabel: 'eps', ...lossWords(loss, r.domain) }).map((c) => ({
    ...c,
    title: `${id}: ${c.title}`,
  }));
}

/** File stem of a case study's table or chart: the item id is left out when the project has one case study. */
function caseStem(id: string, part: string, single: boolean): string {
  return single ? part : `${id}-${part}`;
}

/** DIR/tables/*.csv, DIR/charts/*.png and DIR/analyses/ID.json of one case study. */
function writeCaseStudy(out: string, id: string, r: CaseStudyResult, single: boolean): string[] {
  const files: string[] = [];
  ensureDir(join(out, 'tables'), 'output directory');
  ensureDir(join(out, 'charts'), 'output directory');
  for (const t of r.tables) {
    const f = join(out, 'tables', `${caseStem(id, t.id, single)}.csv`);
    writeFileAtomic(f, tableToCsv({ header: t.header, rows: t.rows }));
    files.push(f);
  }
  for (const c of r.charts) {
    const f = join(out, 'charts', `${caseStem(id, c.id, single)}.png`);
    writeFileAtomic(f, renderChartPng(c), 'chart');
    files.push(f);
  }
  const j = join(out, 'analyses', `${id}.json`);
  writeFileAtomic(j, JSON.stringify(r, null, 2) + '\n');
  files.push(j);
  return files;
}

function caseStudyMarkdown(items: RunItem[], single: boolean): string[] {
  const lines: string[] = [];
  for (const i of items.filter((x) => x.group === 'caseStudies')) {
    if (!i.ok) {
      lines.push(`## Case study ${i.id}`, '', `Failed: ${i.error?.message}`, '');
      continue;
    }
    const r = i.result as CaseStudyResult;
    lines.push(`## ${r.title}`, '', ...caseStudyFindingWords(r.findings), '');
    const details = caseStudyDetailWords(r.findings);
    if (details.length) lines.push('### The mathematics', '', ...details, '');
    for (const c of r.charts) lines.push(`![${c.title}](charts/${caseStem(i.id, c.id, single)}.png)`, '');
    lines.push('Tables:', '');
    for (const t of r.tables)
      lines.push(`- [${t.title}](tables/${caseStem(i.id, t.id, single)}.csv) (${t.rows.length} rows)`);
    lines.push('');
    const small = r.tables.filter((t) => t.rows.length <= 25);
    for (const t of small) {
      lines.push(`### ${t.title}`, '', `| ${t.header.join(' | ')} |`, `|${t.header.map(() => '---').join('|')}|`);
      for (const row of t.rows)
        lines.push(
          `| ${row.map((v) => (typeof v === 'number' ? fmt(v) : v === null ? 'n/a' : String(v).replace(/\|/g, '/'))).join(' | ')} |`,
        );
      lines.push('');
    }
  }
  return lines;
}

function summaryMarkdown(project: Project, items: RunItem[]): string {
  const lines: string[] = [`# ${project.name}`, ''];
  if (project.description) lines.push(project.description, '');
  lines.push(`Generated by \`mechstudio run\` on ${new Date().toISOString()}.`, '');
  lines.push(...caseStudyMarkdown(items, (project.caseStudies ?? []).length === 1));
  if (items.some((x) => x.group === 'mechanisms')) lines.push('## Mechanisms', '');
  if (items.some((x) => x.group === 'mechanisms'))
    lines.push(
      '| id | kind | domain | eps | size | utility (under its prior) | leakage (bits) | effective eps | guarantee | file |',
      '|---|---|---|---|---|---|---|---|---|---|',
    );
  for (const i of items.filter((x) => x.group === 'mechanisms')) {
    if (!i.ok) {
      lines.push(`| ${i.id} | | | | | | | | failed: ${i.error?.message.replace(/\|/g, '/')} | |`);
      continue;
    }
    const r = i.result as MechanismResult;
    if (!r.exists) {
      lines.push(
        `| ${i.id} | ${r.kind} | ${r.domain} | ${fmt(r.epsilon)} | | | | | does not exist (min z = ${fmt(r.minZ)} at ${r.minZAt}) | |`,
      );
      continue;
    }
    lines.push(
      `| ${i.id} | ${r.kind}${r.remap ? ', remapped' : ''} | ${r.domain} | ${fmt(r.epsilon)} | ${r.rows} x ${r.cols} | ${fmt(r.utility)} | ${fmt(r.leakage)} | ${fmt(r.effectiveEpsilon)} | ${r.guarantee.replace(/\|/g, '/')} | channels/${i.id}.csv |`,
    );
  }
  // Remapped mechanisms, expected loss before and after the remap.
  const remapped = items.filter((x) => x.group === 'mechanisms' && x.ok && (x.result as MechanismResult).remap);
  if (remapped.length) {
    lines.push(
      '',
      '| remapped mechanism | original expected loss | remapped expected loss | improvement | LP bound |',
      '|---|---|---|---|---|',
    );
    for (const i of remapped) {
      const m = (i.result as MechanismResult).remap!;
      const bound = m.lpExactLowerBound ?? m.lpLowerBound;
      lines.push(
        `| ${i.id} | ${m.originalLoss === null ? 'n/a' : fmt(m.originalLoss)} | ${fmt(m.remappedLoss)} | ${m.improvement === null ? 'n/a' : fmt(m.improvement)} | ${bound === null ? 'none (no LP in this job)' : fmt(bound)} |`,
      );
    }
  }
  if (items.some((x) => x.group === 'analyses')) lines.push('', '## Analyses', '');
  for (const i of items.filter((x) => x.group === 'analyses')) {
    lines.push(`### ${i.id} (${i.type})`, '');
    if (!i.ok) {
      lines.push(`Failed: ${i.error?.message}`, '');
      continue;
    }
    const res = i.result!;
    if (res.type === 'check') {
      lines.push(
        res.private
          ? `Private: the channel is eps*d-private for eps = ${fmt(res.epsilon)} (effective eps ${fmt(res.effectiveEpsilon)}).`
          : `NOT private at eps = ${fmt(res.epsilon)}: effective eps ${fmt(res.effectiveEpsilon)}. Worst violating pairs (ratio = C[x][y] / C[xp][y]):`,
        '',
      );
    }
    const t = resultTable(res);
    const shown = t.rows.slice(0, 30);
    if (t.header.length && shown.length) {
      lines.push(`| ${t.header.join(' | ')} |`, `|${t.header.map(() => '---').join('|')}|`);
      for (const r of shown)
        lines.push(
          `| ${r.map((v) => (typeof v === 'number' ? fmt(v) : v === null ? 'n/a' : String(v))).join(' | ')} |`,
        );
      if (t.rows.length > shown.length)
        lines.push('', `(${t.rows.length - shown.length} more rows in analyses/${i.id}.csv)`);
    } else if (res.type !== 'check') {
      lines.push('(no rows)');
    }
    if (res.type === 'sweep') lines.push('', `![${i.id}](charts/${i.id}.png)`);
    for (const note of resultNoteLines(res)) lines.push('', `Note: ${note}`);
    lines.push('', `Files: analyses/${i.id}.json, analyses/${i.id}.csv`, '');
  }
  return lines.join('\n') + '\n';
}
