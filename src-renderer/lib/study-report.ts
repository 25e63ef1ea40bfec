/**
 * The Report command: the study report of the project as the page holds it, kept results included, made and
 * written by the host (src-main/project/study-report.ts: its files hashed, its kept channels checked again), a
 * download in web mode, Electron's save dialog on the desktop. The page adds what only it knows: whether each kept
 * mechanism result still matches its inputs (current or stale).
 */
import type { ExportRequest } from '../../src-shared/protocol/index';
import { exportFile } from './channel-export';
import type { ItemResult } from './item-result';
import type { AppState } from './state.svelte';

/** current / stale for every mechanism with a finished result. */
function reportStates(
  mechanismIds: readonly string[],
  results: Record<string, ItemResult | undefined>,
): Record<string, 'current' | 'stale'> {
  const out: Record<string, 'current' | 'stale'> = {};
  for (const id of mechanismIds) {
    const r = results[id];
    if (r?.status === 'done' && r.result) out[id] = r.stale ? 'stale' : 'current';
  }
  return out;
}

/** The file name offered: the project's name made safe, then "-report.html". */
function reportFileName(projectName: string): string {
  const base = projectName
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return `${base || 'study'}-report.html`;
}

export async function exportStudyReport(app: AppState): Promise<void> {
  const project = app.files.snapshotWithResults();
  const request: ExportRequest = {
    kind: 'study-report',
    project,
    projectPath: app.path,
    states: reportStates(
      (project.mechanisms ?? []).map((m) => m.id),
      app.results,
    ),
    name: reportFileName(project.name),
  };
  await exportFile(app, `the study report of ${project.name}`, request);
}
