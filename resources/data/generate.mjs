#!/usr/bin/env node
/**
 * Deterministic generator of the example data (run: node --import tsx resources/data/generate.mjs).
 * Same bytes on every run (seeded PRNG, fixed formatting); the outputs are committed.
 *
 * smart-meter-day.csv   one synthetic household day at 10 s resolution (8640 readings,
 *                       time,watts): standby base load, fridge compressor cycles with a
 *                       start-up surge, kettle boils, an oven on thermostat, a television,
 *                       evening lights and a washing machine cycle.
 * smart-meter-levels.csv  the day's empirical distribution over 11 power levels of 250 W
 *                       (level k = [250k, 250(k+1)) W, the last one 2500 W and above):
 *                       the prior of the smart-meter example's line:11 domain.
 * smart-meter-coarse.csv  the same readings over 4 coarse levels (<150 W, <500 W, <2000 W,
 *                       >= 2000 W): the per-reading prior of the db:3,4:metric=max domain.
 * city-population.csv   a 20 x 20 km city (400 cells of 1 km, row-major) population prior:
 *                       a dense centre, two suburbs and a river valley with nobody, plus a
 *                       small floor so every cell is possible.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
// The engine's seeded generator (mulberry32): run with tsx, which loads the TypeScript module.
import { seededRandom as rng } from '../../src-shared/numeric/seeded-random.ts';

const here = dirname(fileURLToPath(import.meta.url));

const rand = rng(20240611);
const gauss = () => {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
};

const STEP = 10; // seconds
const N = (24 * 3600) / STEP;
const watts = new Float64Array(N);
const at = (h, m = 0, s = 0) => Math.round((h * 3600 + m * 60 + s) / STEP);
const add = (from, to, w) => {
  for (let i = Math.max(0, from); i < Math.min(N, to); i++) watts[i] += typeof w === 'function' ? w(i - from) : w;
};

// standby: router, clocks, chargers ~ 55 W with slow drift and noise
for (let i = 0; i < N; i++) watts[i] = 55 + 8 * Math.sin((2 * Math.PI * i) / N) + 3 * gauss();

// fridge: compressor ~ 95 W for 12-20 min, off 25-40 min (more often when the kitchen is warm),
// with a ~400 W surge for the first 10 s
for (let t = at(0, 7); t < N;) {
  const on = Math.round((12 + 8 * rand()) * 6);
  add(t, t + on, (k) => (k === 0 ? 420 : 95 + 4 * gauss()));
  const hour = (t * STEP) / 3600;
  const off = Math.round((hour > 11 && hour < 20 ? 24 + 8 * rand() : 32 + 10 * rand()) * 6);
  t += on + off;
}

// kettle: 2200 W for about 3 minutes
for (const [h, m] of [
  [6, 52],
  [10, 15],
  [13, 5],
  [16, 30],
  [21, 40],
])
  add(at(h, m), at(h, m) + Math.round((150 + 60 * rand()) / STEP), 2150 + 40 * gauss());

// oven 18:05-18:55: preheat 10 min at 2400 W, then the thermostat cycles (on 60-90 s, off 2-3 min)
{
  const s = at(18, 5);
  add(s, s + 60, 2400);
  for (let t = s + 60; t < at(18, 55);) {
    const on = Math.round(6 + 3 * rand());
    add(t, t + on, 2400 + 30 * gauss());
    t += on + Math.round(12 + 6 * rand());
  }
}

// washing machine 9:30: heating 2000 W for 15 min, then drum 200-500 W for 60 min, spin 600 W for 8 min
{
  const s = at(9, 30);
  add(s, s + 90, 1950 + 40 * gauss());
  add(s + 90, s + 450, (k) => 200 + 300 * Math.abs(Math.sin(k / 9)) + 20 * gauss());
  add(s + 450, s + 498, 600 + 30 * gauss());
}

// television 19:10-22:45, brightness-dependent 90-140 W; a morning news half hour
add(at(19, 10), at(22, 45), () => 115 + 20 * gauss());
add(at(7, 0), at(7, 30), () => 110 + 15 * gauss());

// lights: morning and evening
add(at(6, 30), at(8, 0), 60);
add(at(17, 30), at(23, 30), (k) => (k < 1500 ? 140 : 220));

const round1 = (x) => Math.max(0, Math.round(x * 10) / 10);
const lines = ['time,watts'];
for (let i = 0; i < N; i++) {
  const s = i * STEP;
  const hh = String(Math.floor(s / 3600)).padStart(2, '0');
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  lines.push(`${hh}:${mm}:${ss},${round1(watts[i]).toFixed(1)}`);
}
writeFileSync(join(here, 'smart-meter-day.csv'), lines.join('\n') + '\n');

/** Probabilities that sum to exactly 1 in floating point (last one takes the remainder). */
function distribution(counts) {
  const total = counts.reduce((a, b) => a + b, 0);
  const p = counts.map((c) => c / total);
  const rest = 1 - p.slice(0, -1).reduce((a, b) => a + b, 0);
  p[p.length - 1] = rest;
  return p;
}

const levels = new Array(11).fill(0);
const coarse = new Array(4).fill(0);
for (let i = 0; i < N; i++) {
  const w = round1(watts[i]);
  levels[Math.min(10, Math.floor(w / 250))]++;
  coarse[w < 150 ? 0 : w < 500 ? 1 : w < 2000 ? 2 : 3]++;
}
writeFileSync(join(here, 'smart-meter-levels.csv'), distribution(levels).map(String).join('\n') + '\n');
writeFileSync(join(here, 'smart-meter-coarse.csv'), distribution(coarse).map(String).join('\n') + '\n');

// city: 20 x 20 cells, row r (north to south), column c (west to east)
const R = 20;
const C = 20;
const weight = [];
for (let r = 0; r < R; r++)
  for (let c = 0; c < C; c++) {
    const bump = (r0, c0, s, h) => h * Math.exp(-((r - r0) ** 2 + (c - c0) ** 2) / (2 * s * s));
    let w = bump(9.5, 10, 2.5, 10) + bump(4, 15, 1.8, 4) + bump(15, 4, 2.2, 3) + 0.05;
    if (Math.abs(c - (0.4 * r + 3)) < 0.8) w = 0.01; // the river valley
    weight.push(w);
  }
const city = distribution(weight);
const cityLines = [];
for (let r = 0; r < R; r++)
  cityLines.push(
    city
      .slice(r * C, (r + 1) * C)
      .map(String)
      .join(','),
  );
writeFileSync(join(here, 'city-population.csv'), cityLines.join('\n') + '\n');
console.log(
  `wrote ${N} readings, levels ${levels.join(' ')}, coarse ${coarse.join(' ')}, city prior of ${city.length} cells`,
);
