/** Built-in example projects (resources/examples/*.json). */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { invalid } from '../../src-shared/errors';
import { type AuditExample, type ExampleInfo, type Project } from '../../src-shared/protocol/index';
import { loadProject } from './project-file';
import { parseDomainSpec, closedFormMechanism, ChannelSampler, csvField } from '../../src-worker/index';

export function examplesDir(): string {
  return process.env.MECHSTUDIO_EXAMPLES_DIR ?? fileURLToPath(new URL('../../resources/examples/', import.meta.url));
}

export function listExamples(dir = examplesDir()): ExampleInfo[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort();
  } catch {
    return [];
  }
  return files.map((f) => {
    const p = loadProject(join(dir, f));
    return { name: f.slice(0, -5), title: p.name, description: p.description ?? '' };
  });
}

export function examplePath(name: string, dir = examplesDir()): string {
  const names = listExamples(dir).map((e) => e.name);
  if (!names.includes(name)) invalid(`unknown example '${name}' (available: ${names.join(', ') || 'none'})`);
  return join(dir, `${name}.json`);
}

export function loadExample(name: string, dir = examplesDir()): { path: string; project: Project } {
  const path = examplePath(name, dir);
  return { path, project: loadProject(path) };
}

/** The audit examples: name, title and what they show. */
const AUDIT_EXAMPLES = [
  {
    name: 'vendor-planar-laplace',
    title: "A vendor's planar Laplace, its scale per km instead of per 10 km",
    description:
      'The vendor claims eps = ln 4 per 10 km (0.139 per km: secrets 10 km apart are at most 4 times likelier to give any report). Its planar Laplace takes ln 4 per km: the noise scale read in km where it is meant in units of 10 km, ten times too little noise. 300 logged reports per cell of an 8 x 8 km grid (1 km cells, seeded) refute the claim.',
  },
] as const;

const VENDOR_GRID = 'grid:8x8';
const VENDOR_CLAIM = Math.log(4) / 10;
const VENDOR_PER_CELL = 300;
const VENDOR_SEED = 20260;

/**
 * An audit example by name, its samples drawn by the engine's exact sampler from a fixed seed (the same text every
 * time).
 */
export function auditExample(name: string): AuditExample {
  const info = AUDIT_EXAMPLES.find((e) => e.name === name);
  if (!info) invalid(`unknown audit example '${name}' (available: ${AUDIT_EXAMPLES.map((e) => e.name).join(', ')})`);
  const domain = parseDomainSpec(VENDOR_GRID);
  // The vendor's mistake: ln 4 per km, where the claim is ln 4 per 10 km.
  const channel = closedFormMechanism('planar-laplace', domain, VENDOR_CLAIM * 10).channel;
  const n = domain.n * VENDOR_PER_CELL;
  const secrets = new Int32Array(n);
  for (let i = 0; i < n; i++) secrets[i] = i % domain.n;
  const released = new ChannelSampler(channel, { seed: VENDOR_SEED }).sampleBlock(secrets, n, new Int32Array(n));
  const lines = ['secret,released'];
  for (let i = 0; i < n; i++)
    lines.push(`${csvField(domain.label(secrets[i]!))},${csvField(domain.label(released[i]!))}`);
  return { ...info, domain: VENDOR_GRID, epsilon: VENDOR_CLAIM, samples: lines.join('\n') + '\n' };
}
