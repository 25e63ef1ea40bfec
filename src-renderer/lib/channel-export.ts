/**
 * Channel CSV files the host writes (never through the page): a channel too
 * large to carry inline, streamed row by row by the engine, or a channel the
 * host keeps (an optimal LP's, from its kept doubles, never solved again).
 * Electron asks with its save dialog; web mode downloads the file
 * (lib/file-transfer.ts). Shown in the jobs panel while it writes.
 */
import type { ExportRequest, JobRequest } from '../../src-shared/protocol/index';
import { fetchDownload } from './charts';
import { delivered } from './file-transfer';
import type { AppState } from './state.svelte';
import { messageOf } from '../../src-shared/errors';

export async function exportChannelFile(
  app: AppState,
  request: Extract<JobRequest, { type: 'mechanism' | 'capacity' }>,
  suggested: string,
): Promise<void> {
  await exportFile(app, `channel CSV of ${suggested}`, { kind: 'channel-csv', request, name: suggested });
}

export async function exportKeptChannel(app: AppState, channelRef: string, suggested: string): Promise<void> {
  await exportFile(app, `channel CSV ${suggested}`, { kind: 'kept-channel-csv', channelRef, name: suggested });
}

/** An export the host writes, shown in the jobs panel while it runs; said when delivered (a download in web mode). */
export async function exportFile(app: AppState, label: string, request: ExportRequest): Promise<void> {
  try {
    const r = await app.queue.task(`export ${label}`, 'export', () => app.api.project.export(request));
    const said = delivered(r, fetchDownload);
    if (said) app.toasts.notify(said, 'ok');
  } catch (e) {
    app.toasts.notify(messageOf(e), 'bad');
  }
}
