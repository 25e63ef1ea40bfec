/** Built-in example projects (resources/examples/*.json). */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { invalid } from '../../src-shared/errors';
import type { ExampleInfo } from '../../src-shared/protocol/api';
import type { Project } from '../../src-shared/protocol/project';
import { loadProject } from './project-file';

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
