/**
 * `mechstudio apply --project P`: the release recorded into the project's release log (src-shared/protocol/releases.ts)
 * and refused past the project's privacy budget unless --over-budget; `--geojson FILE`: the released points as GeoJSON.
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { invalid } from '../../src-shared/errors';
import {
  budgetState,
  currentVersionOf,
  describeZodError,
  overBudgetText,
  populationOfHash,
  populationSchema,
  populationText,
  projectSchema,
  INLINE_MATRIX_LIMIT,
  type ApplyResult,
  type JobResult,
  type PointsBinning,
  type BudgetState,
  type Release,
  type ReleaseFile,
} from '../../src-shared/protocol/index';
import {
  FEATURE_COLLECTION_CLOSE,
  FEATURE_COLLECTION_OPEN,
  cellsGeoJson,
  releasedPointFeature,
  rowMapName,
} from '../../src-shared/data/geojson';
import { fmt } from '../../src-shared/charts/result-table';
import { checkWriteTarget, readRegularFileSync, writeFileAtomic } from '../fs/safe-fs';
import { MAX_PROJECT_BYTES, parseProject } from '../project/project-file';
import type { Flags } from './args';

/** What apply records after the release: where, for whom, at which eps, and the budget as it stood. */
export interface PlannedRelease {
  projectPath: string;
  mechanism: string;
  epsilon: number;
  population: string;
  input: ReleaseFile;
  before: BudgetState;
}

/** Name, size and SHA-256 of a file, streamed. */
async function fileFacts(path: string): Promise<ReleaseFile> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return { name: basename(path), size: statSync(path).size, sha256: h.digest('hex') };
}

/** The project file read and validated (one line naming it when it does not parse: it is then never written). */
function readProjectRaw(path: string): { raw: Record<string, unknown>; project: ReturnType<typeof parseProject> } {
  const text = readRegularFileSync(path, 'project', MAX_PROJECT_BYTES);
  const project = parseProject(text, path, 'refuse');
  return { raw: JSON.parse(text) as Record<string, unknown>, project };
}

/**
 * --project, --population, --over-budget of apply: the release planned against the project's budget; a release
 * past it is refused here, before any row is released, unless --over-budget.
 */
export async function planRelease(
  f: Flags,
  input: string,
  epsilon: number | undefined,
  mechanism: string,
): Promise<PlannedRelease | undefined> {
  const projectText = f.str('project');
  if (projectText === undefined) {
    for (const k of ['population', 'over-budget'])
      if (f.has(k)) invalid(`--${k} applies only with --project P (the project whose release log it is)`);
    return undefined;
  }
  if (projectText === '') invalid('--project needs a project file (e.g. --project study.json)');
  const projectPath = resolve(projectText);
  const { project } = readProjectRaw(projectPath);
  if (epsilon === undefined)
    invalid(
      'apply --project with --channel needs --domain and --epsilon: the eps the release spends from the budget is the one the channel is checked at',
    );
  const inputFacts = await fileFacts(input);
  const named = f.str('population');
  let population = populationOfHash(inputFacts.sha256);
  if (named !== undefined) {
    const p = populationSchema.safeParse(named.trim());
    if (!p.success) invalid(`--population must be a name of 1 to 200 characters, got '${named.slice(0, 40)}'`);
    population = p.data;
  }
  const before = budgetState(project.releases, project.privacyBudget, population, epsilon);
  if (before.over && !f.bool('over-budget'))
    invalid(`${overBudgetText(before, fmt)}; give --over-budget to release anyway`);
  return { projectPath, mechanism, epsilon, population, input: inputFacts, before };
}

/** The release appended to the project's log (read again and validated; written atomically: temp + rename). */
async function recordRelease(r: PlannedRelease, result: ApplyResult, outPath: string): Promise<BudgetState> {
  const output = await fileFacts(outPath);
  const release: Release = {
    mechanism: r.mechanism,
    epsilon: r.epsilon,
    population: r.population,
    input: r.input,
    output,
    rows: result.rows,
    randomness: result.forRelease ? 'crypto' : 'seeded',
    date: new Date().toISOString(),
  };
  // Read again: the file may have been saved since the release was planned.
  const { raw, project } = readProjectRaw(r.projectPath);
  const releases = [...(Array.isArray(raw.releases) ? (raw.releases as Release[]) : []), release];
  const next = { ...currentVersionOf(raw), releases };
  const check = projectSchema.safeParse(next);
  if (!check.success) invalid(describeZodError(check.error, r.projectPath));
  writeFileAtomic(r.projectPath, JSON.stringify(next, null, 2) + '\n', 'project');
  return budgetState(releases, project.privacyBudget, r.population, 0);
}

/** The line apply prints after a recorded release. */
function spentLine(s: BudgetState): string {
  const of =
    s.budget === null ? 'no budget set' : `budget ${fmt(s.budget)}${s.spent > s.budget ? ' (OVER BUDGET)' : ''}`;
  return `privacy spent on ${populationText(s.population)}: ${fmt(s.spent)} in total (${of})`;
}

/** The released CSV (released,lat,lon) rewritten as a GeoJSON FeatureCollection of Points, streamed line by line. */
async function writeReleasedGeoJson(csvPath: string, out: string): Promise<number> {
  const lines = createInterface({ input: createReadStream(csvPath), crlfDelay: Infinity });
  const parts: string[] = [FEATURE_COLLECTION_OPEN];
  let header = false;
  let n = 0;
  for await (const line of lines) {
    if (line.startsWith('#') || line === '') continue;
    if (!header) {
      if (line !== 'released,lat,lon')
        invalid(
          `--geojson: the released outputs are not cells of the lat,lon grid (the released CSV has '${line.slice(0, 40)}')`,
        );
      header = true;
      continue;
    }
    const j = line.lastIndexOf(',');
    const i = line.lastIndexOf(',', j - 1);
    let label = line.slice(0, i);
    if (label.startsWith('"')) label = label.slice(1, -1).replace(/""/g, '"');
    parts.push(
      `${n ? ',\n' : ''}${releasedPointFeature(label, Number(line.slice(i + 1, j)), Number(line.slice(j + 1)), n + 1)}`,
    );
    n++;
  }
  parts.push(FEATURE_COLLECTION_CLOSE);
  writeFileAtomic(out, parts.join(''), '--geojson file');
  return n;
}

/** What apply adds to its output after the release: the GeoJSON written, the release recorded and the spent total. */
export interface ReleaseExtras {
  json: Record<string, unknown>;
  text: string[];
}

/**
 * After the job: mechanism's --geojson map, apply's --geojson points and --project's log appended; null when none is
 * asked.
 */
export async function afterJob(
  plan: { release?: PlannedRelease; geojson?: string; mapGeojson?: MapGeoJson },
  result: JobResult,
): Promise<ReleaseExtras | null> {
  if (result.type === 'mechanism' && plan.mapGeojson) return writeMapGeoJson(plan.mapGeojson, result);
  if (result.type !== 'apply' || (!plan.release && !plan.geojson)) return null;
  const r = result as ApplyResult;
  const extras: ReleaseExtras = { json: {}, text: [] };
  if (plan.geojson) {
    const n = await writeReleasedGeoJson(r.csvPath, plan.geojson);
    extras.json.geojson = plan.geojson;
    extras.text.push(`geojson      ${n} points (released cells' centres, [lon, lat]) to ${plan.geojson}`);
  }
  if (plan.release) {
    const s = await recordRelease(plan.release, r, r.csvPath);
    extras.json.release = {
      project: plan.release.projectPath,
      population: s.population,
      epsilon: plan.release.epsilon,
      spent: s.spent,
      budget: s.budget,
    };
    extras.text.push(
      `recorded     release at eps ${fmt(plan.release.epsilon)} into ${plan.release.projectPath}`,
      spentLine(s),
    );
  }
  return extras;
}

/** mechanism --geojson FILE [--focus CELL]: the map of where a user at the focus cell is reported. */
export interface MapGeoJson {
  path: string;
  binning: PointsBinning;
  focus: number;
  /** --out given: the row is read from the channel CSV when the matrix is too large to come back inline. */
  out: boolean;
}

/** --geojson and --focus of mechanism: a lat,lon points grid, a focus cell inside it (default: the centre cell). */
export function mapGeoJsonFlags(f: Flags, binning: PointsBinning | undefined): MapGeoJson | undefined {
  const g = f.str('geojson');
  if (g === undefined) {
    if (f.has('focus')) invalid('--focus applies only with --geojson FILE (the cell whose reports the map shows)');
    return undefined;
  }
  if (g === '') invalid('--geojson needs a file name (e.g. --geojson map.geojson)');
  if (!binning?.projection)
    invalid(
      '--geojson needs a lat,lon points grid: give --prior points:FILE.csv of lat,lon points (the map is drawn on its cells)',
    );
  const n = binning.rows * binning.cols;
  let focus = Math.floor(binning.rows / 2) * binning.cols + Math.floor(binning.cols / 2);
  if (f.has('focus')) {
    const v = f.num('focus');
    if (v === undefined || !Number.isInteger(v) || v < 0 || v >= n)
      invalid(`--focus must be a cell index from 0 to ${n - 1}, got '${f.str('focus') ?? ''}'`);
    focus = v;
  }
  const out = f.has('out');
  if (!out && n * n > INLINE_MATRIX_LIMIT)
    invalid(`--geojson on ${n} cells needs --out FILE.csv (the channel is read back from it)`);
  return { path: checkWriteTargetPath(g), binning, focus, out };
}

function checkWriteTargetPath(p: string): string {
  return checkWriteTarget(resolve(p), '--geojson file');
}

/** The focus cell's row of the channel: inline, else line focus+2 of the channel CSV (labels may be quoted). */
async function channelRow(
  r: Extract<JobResult, { type: 'mechanism' }>,
  focus: number,
): Promise<{ values: number[]; label: string }> {
  if (r.matrix) {
    const { cols, data } = r.matrix;
    return {
      values: Array.from({ length: cols }, (_, j) => data[focus * cols + j]!),
      label: r.matrix.rowLabels[focus] ?? String(focus),
    };
  }
  const lines = createInterface({ input: createReadStream(r.csvPath!), crlfDelay: Infinity });
  let k = -1;
  for await (const line of lines) {
    if (line.startsWith('#')) continue;
    if (k++ !== focus) continue;
    const end = line.startsWith('"') ? line.indexOf('",') + 1 : line.indexOf(',');
    lines.close();
    return {
      values: line
        .slice(end + 1)
        .split(',')
        .map(Number),
      label: line.slice(0, end).replace(/^"|"$/g, ''),
    };
  }
  invalid(`--geojson: the channel CSV has no row ${focus}`);
}

async function writeMapGeoJson(g: MapGeoJson, r: Extract<JobResult, { type: 'mechanism' }>): Promise<ReleaseExtras> {
  if (!r.exists) invalid('--geojson: the mechanism does not exist at this eps; no map is written');
  const { values, label } = await channelRow(r, g.focus);
  if (values.length !== g.binning.rows * g.binning.cols)
    invalid(
      `--geojson: the mechanism's ${values.length} outputs are not the ${g.binning.rows * g.binning.cols} cells of the grid`,
    );
  writeFileAtomic(g.path, cellsGeoJson(g.binning, values, rowMapName(r.kind, label), '--geojson'), '--geojson file');
  return {
    json: { geojson: g.path },
    text: [`geojson      map of where a user at cell ${label} is reported (${values.length} cells) to ${g.path}`],
  };
}
