#!/usr/bin/env node
/**
 * Deterministic example location data (run: node --import tsx resources/data/generate-points.mjs).
 * Same bytes on every run; the output is committed.
 *
 * city-points.csv   2000 home locations (x,y in km, x east, y north, origin at the
 *                   city's south-west corner) drawn from the 20 x 20 km city's
 *                   population (city-population.csv, row 0 = north), uniform inside
 *                   each 1 km cell, 3 decimals. The README's worked example bins them
 *                   back onto the grid (--prior points:...:box=0,0,20,20) and releases
 *                   them with `mechstudio apply`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
// The engine's seeded generator (mulberry32): run with tsx, which loads the TypeScript module.
import { seededRandom as rng } from '../../src-shared/numeric/seeded-random.ts';

const here = dirname(fileURLToPath(import.meta.url));

const pop = readFileSync(join(here, 'city-population.csv'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => l.split(',').map(Number));
const R = pop.length;
const C = pop[0].length;
const cum = [];
let s = 0;
for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) cum.push((s += pop[r][c]));
const rand = rng(20261124);
const lines = ['x,y'];
for (let k = 0; k < 2000; k++) {
  const u = rand() * s;
  let i = cum.findIndex((v) => v > u);
  if (i < 0) i = cum.length - 1;
  const r = Math.floor(i / C);
  const c = i % C;
  // strictly inside the cell (3 decimals never reach its edges)
  const x = c + 0.0005 + rand() * 0.999;
  const y = R - r - 1 + 0.0005 + rand() * 0.999;
  lines.push(`${x.toFixed(3)},${y.toFixed(3)}`);
}
writeFileSync(join(here, 'city-points.csv'), lines.join('\n') + '\n');
console.log(`wrote ${lines.length - 1} points`);
