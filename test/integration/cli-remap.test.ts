/**
 * Remap, apply and points priors from the command line (bin/mechstudio.js as a subprocess, the
 * real worker pool): `mechanism --remap`, `apply`, `--prior points:FILE`.
 * Numbers are recomputed here from the engine and from definitions:
 * the remapped losses equal the engine's remap measure, the exported channel
 * is C . R entry by entry and passes `check`, the remapped loss lies between
 * the LP optimum and the original; seeded releases are reproducible and
 * their frequencies match the channel row (chi-square); a secret outside the
 * domain is an error naming its line and leaves no file; the points prior
 * equals a brute-force binning written here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './cli-run';
import { gridDomain } from '../../src-worker/metric/grid';
import { planarLaplace } from '../../src-worker/mechanism/planar-laplace';
import { remapMechanism } from '../../src-worker/remap/bayes-remap';
import { posteriorLoss } from '../../src-worker/measure/expected-loss';
import { buildLoss } from '../../src-worker/measure/loss-spec';
import { seededRandom } from '../../src-shared/numeric/seeded-random';
import { argv } from '../unit/support/argv';
import { projectFileV1 } from '../unit/support/project-fixture';

const cli = (args: string[], cwd?: string) => runCli(args, cwd ? { cwd } : {});

/** A lumpy prior on n points (no symmetry). */
function lumpy(n: number): number[] {
  const w = Array.from({ length: n }, (_, i) => 1 + ((i * 5) % 7) ** 2);
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / s);
}

/** Channel CSV (SPEC §8) -> rows of numbers and the labels. */
function readChannel(path: string): { colLabels: string[]; rowLabels: string[]; rows: number[][] } {
  const lines = readFileSync(path, 'utf8').trim().split('\n');
  const split = (l: string): string[] =>
    (l.match(/("([^"]|"")*"|[^,]*)(,|$)/g) ?? [])
      .map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"'))
      .slice(0, -1);
  const head = split(lines[0]!);
  const rows = lines.slice(1).map(split);
  return { colLabels: head.slice(1), rowLabels: rows.map((r) => r[0]!), rows: rows.map((r) => r.slice(1).map(Number)) };
}

/** Wilson-Hilferty upper quantile of chi-square with k degrees of freedom (z: normal quantile). */
function chiSquareCritical(k: number, z: number): number {
  const a = 2 / (9 * k);
  return k * (1 - a + z * Math.sqrt(a)) ** 3;
}
const Z_001 = 3.090232306167813;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mechstudio-cli-remap-'));
});

describe('mechanism --remap', () => {
  const side = 6;
  const eps = 0.7;
  const pi = lumpy(side * side);

  it('reports the engine remap measure, exports exactly C . R, and the channel passes the privacy check', async () => {
    const out = join(dir, 'pl-remap.csv');
    const r = await cli(argv`mechanism --domain grid:${side}x${side} --epsilon ${String(eps)} --kind planar-laplace
      --prior ${pi.join(',')} --loss dist --remap --out ${out} --json --quiet`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    // the engine's numbers, recomputed here
    const domain = gridDomain(side, side);
    const mech = planarLaplace(domain, eps);
    const prior = Float64Array.from(pi);
    const engine = remapMechanism(mech, domain, prior, { kind: 'dist' });
    const measure = posteriorLoss(prior, mech.channel, buildLoss({ kind: 'dist' }, domain));
    expect(j.remappedLoss).toBe(engine.remappedLoss);
    expect(j.remappedLoss).toBe(measure.value);
    expect(j.expectedLoss).toBe(measure.value);
    expect(j.originalLoss).toBeCloseTo(engine.originalLoss!, 12);
    expect(j.improvement).toBeGreaterThan(0);
    expect(j.remap.remappedLoss).toBe(j.remappedLoss);
    expect(j.remap.lpLowerBound).toBeNull();
    expect(j.remap.lpNote).toMatch(/not run implicitly/);
    // face value from the definition
    const c = readChannel(out);
    expect(c.rows.length).toBe(side * side);
    const buf = new Float64Array(side * side);
    let face = 0;
    for (let x = 0; x < side * side; x++) {
      mech.channel.row(x, buf);
      for (let y = 0; y < side * side; y++) face += pi[x]! * buf[y]! * domain.distance(x, y);
    }
    expect(j.originalLoss).toBeCloseTo(face, 12);
    // the exported channel is C . R: (CR)[x][w] = sum of C[x][y] over y with remap[y] = w
    let maxDiff = 0;
    let exportedLoss = 0;
    for (let x = 0; x < side * side; x++) {
      mech.channel.row(x, buf);
      const want = new Float64Array(side * side);
      for (let y = 0; y < side * side; y++) want[engine.remap[y]!]! += buf[y]!;
      for (let w = 0; w < side * side; w++) {
        maxDiff = Math.max(maxDiff, Math.abs(c.rows[x]![w]! - want[w]!));
        exportedLoss += pi[x]! * c.rows[x]![w]! * domain.distance(w, x);
      }
    }
    expect(maxDiff).toBeLessThan(1e-15);
    // its face-value loss is the remapped loss (CSV text round trip: 17 significant digits)
    expect(exportedLoss).toBeCloseTo(j.remappedLoss, 12);
    const check = await cli(argv`check --channel ${out} --domain grid:${side}x${side}
      --epsilon ${String(eps)} --json --quiet`);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout).private).toBe(true);
    expect(j.effectiveEpsilon).toBeLessThanOrEqual(eps * (1 + 1e-9));
  }, 60_000);

  it('on a small grid the remapped loss lies between the LP optimum and the original', async () => {
    const s = 3;
    const p = lumpy(s * s);
    const common = argv`--domain grid:${s}x${s} --epsilon 1.2 --prior ${p.join(',')} --loss dist --json --quiet`;
    const [pl, tight, lp] = await Promise.all([
      cli(argv`mechanism ${common} --kind planar-laplace --remap`),
      cli(argv`mechanism ${common} --kind tight --remap`),
      cli(argv`mechanism ${common} --kind optimal --lp-model exact --remap`),
    ]);
    for (const r of [pl, tight, lp]) expect(r.code, r.stderr).toBe(0);
    const jl = JSON.parse(lp.stdout);
    // the LP's certified bound on the exact optimum is what a remap of the LP's own job reports
    expect(jl.remap.lpExactLowerBound ?? jl.remap.lpLowerBound).toBeCloseTo(
      jl.lp.exactLowerBound ?? jl.lp.lowerBound,
      12,
    );
    const optimum = jl.lp.exactLowerBound ?? jl.lp.lowerBound;
    for (const r of [pl, tight]) {
      const j = JSON.parse(r.stdout);
      expect(j.remappedLoss).toBeLessThanOrEqual(j.originalLoss + 1e-12);
      expect(j.remappedLoss).toBeGreaterThanOrEqual(optimum - 1e-9);
    }
  }, 120_000);

  it('--remap without --prior and --loss exits 2 with one line naming what is missing', async () => {
    const r = await cli(argv`mechanism --domain line:5 --epsilon 1 --kind tg --remap --loss dist`);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--remap needs --prior and --loss.*missing --prior/);
  });
});

describe('apply', () => {
  it('with --seed is reproducible, marked not for release, and its frequencies match the channel row (chi-square, alpha = 0.001)', async () => {
    const ch = join(dir, 'tg.csv');
    const made = await cli(argv`mechanism --domain line:8 --epsilon 0.5 --kind tg --out ${ch} --quiet`);
    expect(made.code).toBe(0);
    const c = readChannel(ch);
    const secret = 2; // label '2'
    const draws = 100_000;
    const input = join(dir, 'secrets-one.csv');
    writeFileSync(input, 'secret\n' + `${c.rowLabels[secret]}\n`.repeat(draws));
    const out1 = join(dir, 'rel1.csv');
    const out2 = join(dir, 'rel2.csv');
    const a = await cli(argv`apply --channel ${ch} --domain line:8 --input ${input} --out ${out1} --seed 42
      --json --quiet`);
    const b = await cli(argv`apply --channel ${ch} --domain line:8 --input ${input} --out ${out2} --seed 42 --quiet`);
    expect(a.code, a.stderr).toBe(0);
    expect(b.code).toBe(0);
    expect(a.stderr).toMatch(/NOT for release/);
    const j = JSON.parse(a.stdout);
    expect(j).toMatchObject({ rows: draws, forRelease: false, mode: 'labels', out: out1 });
    const t1 = readFileSync(out1, 'utf8');
    expect(t1).toBe(readFileSync(out2, 'utf8'));
    const lines = t1.trim().split('\n');
    expect(lines[0]).toMatch(/^# NOT FOR RELEASE/);
    expect(lines[1]).toBe('released');
    expect(lines.length).toBe(draws + 2);
    const counts = new Array<number>(c.colLabels.length).fill(0);
    const index = new Map(c.colLabels.map((l, k) => [l, k]));
    for (const l of lines.slice(2)) counts[index.get(l)!]!++;
    const row = c.rows[secret]!;
    let stat = 0;
    let bins = 0;
    for (let y = 0; y < row.length; y++) {
      const e = row[y]! * draws;
      expect(e).toBeGreaterThan(5);
      stat += (counts[y]! - e) ** 2 / e;
      bins++;
    }
    expect(stat).toBeLessThan(chiSquareCritical(bins - 1, Z_001));
    // a different row is rejected by the same test
    const other = c.rows[7]!;
    let statOther = 0;
    for (let y = 0; y < other.length; y++)
      statOther += (counts[y]! - other[y]! * draws) ** 2 / Math.max(other[y]! * draws, 1e-9);
    expect(statOther).toBeGreaterThan(10 * chiSquareCritical(bins - 1, Z_001));
    // a different seed gives a different stream
    const out3 = join(dir, 'rel3.csv');
    expect(
      (await cli(argv`apply --channel ${ch} --domain line:8 --input ${input} --out ${out3} --seed 43 --quiet`)).code,
    ).toBe(0);
    expect(readFileSync(out3, 'utf8')).not.toBe(t1);
  }, 60_000);

  it('without --seed writes no warning line and one output per row, in order', async () => {
    const input = join(dir, 'secrets-line.csv');
    // outputs of rr at a huge eps are the secrets themselves (prob 1 - 7e-9 each): order is visible
    const secrets = Array.from({ length: 500 }, (_, i) => (i * 3) % 8);
    writeFileSync(input, 'value\n' + secrets.map((s) => `${s}.0\n`).join(''));
    const out = join(dir, 'rel-crypto.csv');
    const r = await cli(argv`apply --domain line:8 --epsilon 20 --kind rr --input ${input} --out ${out}
      --quiet --json`);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).forRelease).toBe(true);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('released');
    expect(lines.length).toBe(501);
    let same = 0;
    for (let i = 0; i < 500; i++) if (lines[i + 1] === String(secrets[i])) same++;
    expect(same).toBeGreaterThanOrEqual(498);
  }, 60_000);

  it('a secret outside the domain is an error naming its line, and no output file is left', async () => {
    const input = join(dir, 'secrets-bad.csv');
    writeFileSync(input, 'cell\n"(0,0)"\n"(2,1)"\n"(9,1)"\n"(1,1)"\n');
    const out = join(dir, 'rel-bad.csv');
    const r = await cli(argv`apply --domain grid:3x3 --epsilon 1 --kind planar-laplace --input ${input}
      --out ${out} --quiet`);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/line 4/);
    expect(r.stderr).not.toMatch(/\(9,1\)/); // the secret itself is never quoted
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(false);
  }, 60_000);

  it('--channel with construction flags is refused', async () => {
    const r = await cli(argv`apply --channel ${join(dir, 'tg.csv')} --domain line:8 --kind tg
      --input ${join(dir, 'secrets-one.csv')} --out ${join(dir, 'x.csv')}`);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--channel or the construction flags/);
  });
});

describe('--prior points:FILE', () => {
  it('equals a brute-force binning; outside points are counted in a warning; apply maps points to the same cells', async () => {
    const rand = seededRandom(99);
    const pts: [number, number][] = [];
    // some outside the box [0,3] x [0,2]
    for (let k = 0; k < 3000; k++) pts.push([-0.5 + rand() * 4, -0.3 + rand() * 2.6]);
    pts.push([3, 2], [0, 0], [1.5, 1]); // on edges and a grid line
    const file = join(dir, 'pts.csv');
    writeFileSync(file, 'id,x,y\n' + pts.map(([x, y], i) => `${i},${x},${y}`).join('\n') + '\n');
    const cell = 0.5;
    const alpha = 0.25;
    /** Planar Laplace at eps 2 on the points prior (binned, smoothed), with `more` options. */
    const onPoints = (...more: string[]) =>
      cli(argv`mechanism --prior points:${file}:cell=${cell}:box=0,0,3,2:smooth=${alpha} --epsilon 2
        --kind planar-laplace ${more}`);
    const r = await onPoints('--loss', 'dist', '--remap', '--json', '--quiet');
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    // brute force: cell (row, col) = [col*s, (col+1)*s) x (2 - (row+1)*s, 2 - row*s], far edges closed
    const rows = 4;
    const cols = 6;
    const counts = new Array<number>(rows * cols).fill(0);
    let outside = 0;
    for (const [x, y] of pts) {
      if (x < 0 || x > 3 || y < 0 || y > 2) {
        outside++;
        continue;
      }
      let found = -1;
      for (let rr = 0; rr < rows && found < 0; rr++) {
        for (let cc = 0; cc < cols; cc++) {
          const inX = x >= cc * cell && (x < (cc + 1) * cell || (cc === cols - 1 && x <= 3));
          const inY = y <= 2 - rr * cell && (y > 2 - (rr + 1) * cell || (rr === rows - 1 && y >= 0));
          if (inX && inY) {
            found = rr * cols + cc;
            break;
          }
        }
      }
      counts[found]!++;
    }
    const inside = pts.length - outside;
    const prior = counts.map((c) => (c + alpha) / (inside + alpha * rows * cols));
    expect(j.pointsPrior.domain).toBe('grid:4x6:step=0.5');
    expect(j.pointsPrior.counts).toEqual(counts);
    expect(j.pointsPrior.outside).toBe(outside);
    for (let k = 0; k < prior.length; k++) expect(j.pointsPrior.prior[k]).toBeCloseTo(prior[k]!, 15);
    // --quiet hides progress, not the warning naming the count of outside points
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`warning: ${outside} of ${pts.length} points lie outside the box`);
    const text = await onPoints('--quiet');
    expect(text.stdout).toMatch(/smoothing 0.25 pseudo-points per cell/);
    // the remap ran on that prior: the engine on the brute-force prior gives the same loss
    const domain = gridDomain(rows, cols, cell);
    const engine = remapMechanism(planarLaplace(domain, 2), domain, Float64Array.from(prior), { kind: 'dist' });
    expect(j.remappedLoss).toBeCloseTo(engine.remappedLoss, 12);
    // apply: the inside points as secrets, mapped to the same cells (eps huge: released = true cell)
    const inPts = pts.filter(([x, y]) => x >= 0 && x <= 3 && y >= 0 && y <= 2).slice(0, 300);
    const sec = join(dir, 'pts-secrets.csv');
    writeFileSync(sec, 'x,y\n' + inPts.map(([x, y]) => `${x},${y}`).join('\n') + '\n');
    const out = join(dir, 'pts-released.csv');
    const a = await cli(argv`apply --prior points:${file}:cell=${cell}:box=0,0,3,2 --epsilon 60 --kind rr
      --input ${sec} --out ${out} --seed 1 --quiet --json`);
    expect(a.code, a.stderr).toBe(0);
    expect(JSON.parse(a.stdout).mode).toBe('points');
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines[1]).toBe('released,x,y');
    expect(lines.length).toBe(inPts.length + 2);
    for (let i = 0; i < inPts.length; i++) {
      const [x, y] = inPts[i]!;
      const line = lines[i + 2]!; // "(r,c)",x,y
      const [cx, cy] = line.slice(line.lastIndexOf('"') + 2).split(',');
      // the released cell's centre is within half a cell of the point in each coordinate (rr at eps 60 releases the
      // true cell)
      expect(Math.abs(Number(cx) - x)).toBeLessThanOrEqual(cell / 2 + 1e-12);
      expect(Math.abs(Number(cy) - y)).toBeLessThanOrEqual(cell / 2 + 1e-12);
    }
  }, 120_000);

  it('a --domain that is not the points grid is refused', async () => {
    const file = join(dir, 'pts2.csv');
    writeFileSync(file, 'x,y\n0.2,0.2\n1.7,0.9\n');
    const r = await cli(argv`mechanism --prior points:${file}:box=0,0,2,1 --domain grid:3x3 --epsilon 1 --kind tg`);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/does not match the points grid grid:1x2/);
  });
});

describe('project files take remap', () => {
  it('a remapped mechanism in a project (points prior, relative path) reports the same losses as the CLI; remap without a loss is refused', async () => {
    const pdir = mkdtempSync(join(dir, 'proj-'));
    writeFileSync(join(pdir, 'homes.csv'), 'x,y\n0.5,0.5\n0.6,0.4\n2.5,1.5\n1.2,0.3\n0.1,1.9\n');
    const project = projectFileV1('remap project', {
      domains: [{ id: 'g', domain: 'grid:2x3' }],
      priors: [{ id: 'homes', domain: 'g', prior: 'points:homes.csv:box=0,0,3,2:smooth=0.1' }],
      mechanisms: [
        { id: 'pl', domain: 'g', kind: 'planar-laplace', epsilon: 1, prior: 'homes', loss: 'dist', remap: true },
      ],
    });
    writeFileSync(join(pdir, 'p.json'), JSON.stringify(project));
    const r = await cli(argv`run ${join(pdir, 'p.json')} --out ${join(pdir, 'out')} --quiet`);
    expect(r.code, r.stderr).toBe(0);
    const summary = readFileSync(join(pdir, 'out', 'summary.md'), 'utf8');
    const c = await cli(argv`mechanism --prior points:${join(pdir, 'homes.csv')}:box=0,0,3,2:smooth=0.1 --epsilon 1
      --kind planar-laplace --loss dist --remap --json --quiet`);
    const j = JSON.parse(c.stdout);
    const row = summary.split('\n').find((l) => l.startsWith('| pl |') && l.includes('none (no LP'));
    expect(row).toBeDefined();
    const cells = row!.split('|').map((s) => s.trim());
    expect(Number(cells[2])).toBeCloseTo(j.originalLoss, 5);
    expect(Number(cells[3])).toBeCloseTo(j.remappedLoss, 5);
    project.mechanisms[0] = { ...project.mechanisms[0]!, loss: undefined as unknown as string };
    writeFileSync(join(pdir, 'bad.json'), JSON.stringify(project));
    const bad = await cli(argv`run ${join(pdir, 'bad.json')} --out ${join(pdir, 'out2')} --quiet`);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/remap needs a loss/);
  }, 60_000);
});
