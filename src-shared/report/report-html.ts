/**
 * The study report as one self-contained HTML page (no script, no outside resource: a Content-Security-Policy
 * allows only inline styles and data: images), laid out to print cleanly to PDF (A4, sections that do not split a
 * table row). Every text that comes from the project is escaped. Charts arrive as PNG data URLs made by the caller
 * (Chart.js on a Node canvas); maps are drawn here as SVG, all maps of a comparison on one colour scale.
 */
import type { CompareResult } from '../protocol/index';
import { auditTestText, auditVerdictBadge, auditVerdictDetail } from '../charts/audit-words';
import { compareTableText, sig4 } from '../charts/compare-report';
import { heatColor } from '../charts/heat-color';
import { KIND_LABELS } from '../charts/kind-words';
import {
  STATE_WORDS,
  RANDOMNESS_WORDS,
  budgetWords,
  epsWords,
  fileWords,
  foundNotPrivate,
  lpWords,
  privacyWords,
  recheckWords,
} from '../charts/report-words';
import { populationText } from '../protocol/index';
import type { ReportAudit, ReportComparison, ReportMechanism, StudyReport } from './study-report';

/** Charts drawn by the caller, as data:image/png URLs, by comparison id. */
export type ReportImages = Record<string, string>;

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Text made safe for HTML content and attribute values. */
export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESC[c]!);
}
const num = (x: number | null | undefined): string =>
  x === null || x === undefined ? '—' : Number.isFinite(x) ? sig4(x) : 'infinite';

function table(header: string[] | null, rows: string[][], cls = ''): string {
  const head = header ? `<thead><tr>${header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead>` : '';
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('\n');
  return `<table${cls ? ` class="${cls}"` : ''}>${head}<tbody>\n${body}\n</tbody></table>`;
}

/** Largest side a map is drawn at (cells); larger grids are drawn by block means. */
const MAP_MAX_SIDE = 100;

/**
 * One map as SVG: values on a rows x cols grid (row 0 at the top), colour t = value / vmax, the marked cell outlined.
 */
export function mapSvg(
  values: readonly number[],
  rows: number,
  cols: number,
  vmax: number,
  title: string,
  marked: number | null = null,
): string {
  const by = Math.max(1, Math.ceil(Math.max(rows, cols) / MAP_MAX_SIDE));
  const br = Math.ceil(rows / by);
  const bc = Math.ceil(cols / by);
  const px = Math.max(2, Math.floor(300 / Math.max(br, bc)));
  const cells: string[] = [];
  for (let i = 0; i < br; i++)
    for (let j = 0; j < bc; j++) {
      let s = 0;
      let n = 0;
      for (let a = i * by; a < Math.min(rows, (i + 1) * by); a++)
        for (let b = j * by; b < Math.min(cols, (j + 1) * by); b++) {
          s += values[a * cols + b] ?? 0;
          n++;
        }
      const v = n > 0 ? s / n : 0;
      cells.push(
        `<rect x="${j * px}" y="${i * px}" width="${px}" height="${px}" fill="${heatColor(vmax > 0 ? v / vmax : 0)}"/>`,
      );
    }
  if (marked !== null && marked >= 0 && marked < rows * cols) {
    const i = Math.floor(Math.floor(marked / cols) / by);
    const j = Math.floor((marked % cols) / by);
    cells.push(
      `<rect x="${j * px}" y="${i * px}" width="${px}" height="${px}" fill="none" stroke="#e4572e" stroke-width="2"/>`,
    );
  }
  const w = bc * px;
  const h = br * px;
  return (
    `<figure class="map"><svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(title)}">` +
    `${cells.join('')}</svg><figcaption>${esc(title)}${by > 1 ? ` (drawn in blocks of ${by} x ${by} cells)` : ''}</figcaption></figure>`
  );
}

function mechanismRows(ms: ReportMechanism[]): string {
  if (ms.length === 0) return '<p>No mechanism in this study.</p>';
  const rows = ms.map((m) => {
    const r = m.result;
    const unit = r?.unit === 'km' ? ' km' : '';
    // the line under the verdict: what was not checked again, or the check kept with the result
    const under =
      m.state === 'not-computed'
        ? ''
        : m.recheck.kind !== 'checked'
          ? recheckWords(m.recheck)
          : m.keptCheck
            ? `kept check, when computed: effective ε ${num(m.keptCheck.effectiveEpsilon)}${m.keptCheck.private ? '' : ' (NOT private)'}`
            : '';
    const privacy = `<span class="${foundNotPrivate(m) ? 'bad' : ''}">${esc(privacyWords(m))}</span>${under ? `<br><small>${esc(under)}</small>` : ''}`;
    const lp = lpWords(m);
    return [
      `<b>${esc(m.id)}</b><br><small>${esc(KIND_LABELS[m.kind as keyof typeof KIND_LABELS] ?? m.kind)}${m.remap ? ' + remap' : ''}</small>`,
      `${esc(m.domain)}${m.prior ? `<br><small>prior ${esc(m.prior)}</small>` : ''}${m.loss ? `<br><small>loss ${esc(m.loss)}</small>` : ''}`,
      esc(epsWords(m.epsilon)),
      privacy,
      lp ? esc(lp) : '—',
      r ? `${num(r.utility)}` : '—',
      r && r.expectedLoss !== null && r.expectedLoss !== undefined ? `${num(r.expectedLoss)}${unit}` : '—',
      r && r.leakage !== null && r.leakage !== undefined ? `${num(r.leakage)} bits` : '—',
      `<span class="${m.state === 'stale' ? 'bad' : ''}">${esc(STATE_WORDS[m.state])}</span>${m.computedAt ? `<br><small>${esc(m.computedAt)}</small>` : ''}`,
    ];
  });
  return table(
    ['mechanism', 'domain', 'ε', 'privacy', 'optimality', 'utility', 'expected loss', 'leakage', 'result'],
    rows,
    'wide',
  );
}

function comparisonMaps(r: CompareResult): string {
  const g = r.grid;
  const live = r.rows.filter((row) => row.exists && row.focusRow);
  if (!g || live.length === 0) return '';
  let vmax = 0;
  for (const row of live) for (const v of row.focusRow!) vmax = Math.max(vmax, v);
  const maps = live.map((row) =>
    mapSvg(
      row.focusRow!,
      g.rows,
      g.cols,
      vmax,
      `${row.label}: reports of a user at ${r.focusLabel ?? 'the focus cell'}`,
      r.focus,
    ),
  );
  let pmax = 0;
  for (const v of r.prior ?? []) pmax = Math.max(pmax, v);
  const prior = r.prior
    ? mapSvg(r.prior, g.rows, g.cols, pmax, `the prior (where users are; its own scale, 0 to ${num(pmax)})`, r.focus)
    : '';
  return (
    `<p class="note">Where a user at cell ${esc(r.focusLabel ?? '?')} (outlined) is reported by each mechanism, on one colour scale from 0 to ${esc(num(vmax))} ` +
    `(the largest probability on any of these maps; the prior on its own); cells of ${esc(num(g.step))} km.</p><div class="maps">${prior}${maps.join('')}</div>`
  );
}

function comparisonSection(c: ReportComparison, images: ReportImages): string {
  const head = `<h3>${esc(c.id)}</h3><p>At ε = ${esc(c.epsilonText ?? num(c.epsilon))}${c.epsilonText ? ` (${esc(num(c.epsilon))})` : ''}${c.computedAt ? `, computed ${esc(c.computedAt)}` : ''}.</p>`;
  if (!c.result) return `${head}<p>Not run: the comparison's settings are kept, it has no table.</p>`;
  const t = compareTableText(c.result);
  const notes = t.notes.length ? `<ul class="notes">${t.notes.map((n) => `<li>${esc(n)}</li>`).join('')}</ul>` : '';
  const chart = images[c.id]
    ? `<img class="chart" alt="${esc(`${c.id}: expected distance per mechanism`)}" src="${esc(images[c.id]!)}">`
    : '';
  return `${head}${table(
    t.header,
    t.rows.map((r) => r.map(esc)),
  )}${notes}${chart}${comparisonMaps(c.result)}`;
}

function auditSection(a: ReportAudit): string {
  const file = a.file
    ? `${esc(a.file.name)} (${a.file.size.toLocaleString('en-US')} bytes, SHA-256 ${esc(a.file.sha256)})`
    : esc(a.example ? `the example ${a.example}` : 'not recorded');
  const claim = `claimed ε = ${esc(a.epsilonText)}${a.epsilonText.trim() !== String(a.epsilon) ? ` (${esc(num(a.epsilon))})` : ''}, confidence ${esc(String(Number((a.confidence * 100).toPrecision(6))))}%`;
  if (!a.result) return `<h3>${esc(a.id)}</h3><p>${claim}; samples ${file}.</p><p>Not run.</p>`;
  const r = a.result;
  const verdict = `<p class="${r.verdict === 'refuted' ? 'bad' : ''}"><b>${esc(auditVerdictBadge(r))}</b> ${esc(auditVerdictDetail(r, a.epsilonText))}</p>`;
  const witness = r.witness ? `<p>Witness: ${esc(auditTestText(r.witness))}</p>` : '';
  const counts = `<p><small>${r.samples.toLocaleString('en-US')} samples, ${r.secretsSeen} secrets with two or more, ${r.pairsTested} pairs tested${a.computedAt ? `; run ${esc(a.computedAt)}` : ''}.</small></p>`;
  return `<h3>${esc(a.id)}</h3><p>${claim} on ${esc(a.domain.length > 120 ? `${a.domain.slice(0, 120)}...` : a.domain)}; samples ${file}.</p>${verdict}${witness}${counts}`;
}

function inputsSection(s: StudyReport): string {
  const rows = s.inputs.map((i) => {
    const p = i.points;
    const how = p
      ? `from points in ${esc(p.file)}: ${p.inside.toLocaleString('en-US')} inside the grid, ${p.outside.toLocaleString('en-US')} outside; box ${
          p.box ? esc(p.box.map((v) => String(v)).join(', ')) : "the data's extent"
        }; smoothing ${esc(String(p.smoothing))}; binning ${esc(JSON.stringify(p.binning))}`
      : '';
    const src = i.source
      ? `read from <code>${esc(i.source.name)}</code>: ${i.source.size.toLocaleString('en-US')} bytes, SHA-256 <code>${esc(i.source.sha256)}</code>`
      : '';
    const under = [src, how]
      .filter(Boolean)
      .map((x) => `<br><small>${x}</small>`)
      .join('');
    return [
      esc(i.kind),
      `<b>${esc(i.id)}</b>${i.domain ? `<br><small>on ${esc(i.domain)}</small>` : ''}`,
      `<code>${esc(i.form)}</code>${under}`,
    ];
  });
  const files = s.files.length
    ? table(
        ['file', 'used as', 'as read for this report'],
        s.files.map((f) => [
          `<code>${esc(f.name)}</code>`,
          esc(f.role),
          `<span class="${f.ok ? '' : 'bad'}">${esc(fileWords(f))}</span>`,
        ]),
      )
    : '<p>The project names no file of its own: its inputs are inside the project file (a prior read from a file shows that file above).</p>';
  return `${table(['', 'id', 'given as'], rows)}<h3>Input files</h3>${files}`;
}

function releasesSection(s: StudyReport): string {
  if (s.releases.length === 0) return '<p>No release recorded.</p>';
  const f = (x: { name: string; size: number; sha256: string }): string =>
    `${esc(x.name)}<br><small>${x.size.toLocaleString('en-US')} bytes, SHA-256 <code>${esc(x.sha256)}</code></small>`;
  const rows = s.releases.map((r) => [
    esc(r.date),
    esc(r.mechanism),
    esc(epsWords(r.epsilon)),
    esc(populationText(r.population)),
    f(r.input),
    f(r.output),
    r.rows.toLocaleString('en-US'),
    esc(RANDOMNESS_WORDS[r.randomness]),
  ]);
  return table(['date', 'mechanism', 'ε spent', 'population', 'input', 'output', 'rows', 'randomness'], rows, 'wide');
}

function budgetSection(s: StudyReport): string {
  const all =
    s.budgetAll !== null
      ? `<p>Budget for every population: ε = ${esc(num(s.budgetAll))} (a population's own budget, when set, wins).</p>`
      : '';
  const rule =
    '<p class="note">Releases of the same population add up: k releases, each ε<sub>i</sub>·d-private with independent randomness, are together (ε<sub>1</sub> + … + ε<sub>k</sub>)·d-private.</p>';
  if (s.budget.length === 0) return `${all}<p>No release spent any budget.</p>${rule}`;
  const rows = s.budget.map((b) => [
    esc(populationText(b.population)),
    String(b.releases),
    num(b.spent),
    num(b.budget),
    `<span class="${b.budget !== null && b.spent > b.budget ? 'bad' : ''}">${esc(budgetWords(b))}</span>`,
  ]);
  return `${all}${table(['population', 'releases', 'ε spent', 'budget', 'state'], rows)}${rule}`;
}

const STYLE = `
body{font:13px/1.45 "DejaVu Sans",Arial,sans-serif;color:#222;margin:24px auto;max-width:1100px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;border-bottom:1px solid #bbb;margin:28px 0 8px;padding-bottom:2px}
h3{font-size:14px;margin:18px 0 6px}table{border-collapse:collapse;margin:6px 0;width:100%}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}th{background:#f1f3f6}
tr{break-inside:avoid}code{font-size:12px;word-break:break-all}small{color:#555}.bad{color:#b00020;font-weight:bold}
.note{color:#444}.maps{display:flex;flex-wrap:wrap;gap:12px}.map{margin:0;break-inside:avoid}
.map figcaption{font-size:11px;max-width:300px}img.chart{max-width:100%;break-inside:avoid}
section{break-inside:auto}.meta td:first-child{width:180px;color:#555}
@page{size:A4;margin:14mm}@media print{body{margin:0;max-width:none}h2{break-after:avoid}}
`;

/** The whole report page. */
export function studyReportHtml(s: StudyReport, images: ReportImages = {}): string {
  const meta = table(
    null,
    [
      ['study', esc(s.title)],
      ['report made', `${esc(s.generatedAt)} by ${esc(s.tool)}`],
      [
        'project file',
        s.projectFile
          ? `<code>${esc(s.projectFile.name)}</code>, ${esc(fileWords(s.projectFile))}`
          : 'not saved to a file',
      ],
    ],
    'meta',
  );
  const flagged = s.mechanisms.filter(foundNotPrivate).map((m) => m.id);
  const warn = flagged.length
    ? `<p class="bad">Not private as claimed: ${flagged.map(esc).join(', ')} (see Mechanisms).</p>`
    : '';
  const body = [
    `<h1>${esc(s.title)}</h1>`,
    s.description ? `<p>${esc(s.description)}</p>` : '',
    meta,
    warn,
    `<section><h2>Inputs and their provenance</h2>${inputsSection(s)}</section>`,
    `<section><h2>Mechanisms</h2><p class="note">Privacy says what it rests on: a check run for this report, the check kept with the result, or the construction; an LP's optimality is the certificate its solve recorded.</p>${mechanismRows(s.mechanisms)}</section>`,
    `<section><h2>Comparisons</h2>${s.comparisons.length ? s.comparisons.map((c) => comparisonSection(c, images)).join('\n') : '<p>No comparison in this study.</p>'}</section>`,
    `<section><h2>Releases</h2>${releasesSection(s)}</section>`,
    `<section><h2>Audits</h2>${s.audits.length ? s.audits.map(auditSection).join('\n') : '<p>No audit in this study.</p>'}</section>`,
    `<section><h2>Privacy budget</h2>${budgetSection(s)}</section>`,
  ].join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(s.title)}: study report</title><style>${STYLE}</style></head>
<body>
${body}
</body></html>
`;
}
