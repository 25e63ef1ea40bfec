/**
 * How a file leaves or enters the page, the same for every export and every
 * open: the host answers an export or a save with the files it wrote
 * (Electron: where its save dialog pointed) or with a one-time download
 * (web mode: the browser saves it, DownloadOffer); web mode's Open uploads
 * the picked file into a slot the host hands out (transfer.slot) and names
 * the slot's token. No message here names a path on the server.
 */
import type { DownloadOffer, ExportResult, MechStudioApi } from '../../src-shared/protocol/index';

/** Bytes in words: 812 bytes, 4.1 kB, 2.3 MB. */
export function sizeText(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

/**
 * Finish an export: start its download when the host offers one (`start`:
 * lib/charts.ts fetchDownload in the page), and say
 * where it went ("downloaded channel.csv (4.1 kB)", "wrote /home/me/a.csv");
 * null when the user cancelled the save dialog.
 */
export function delivered(
  r: Pick<ExportResult, 'files' | 'download'>,
  start: (offer: DownloadOffer) => void,
): string | null {
  if (r.download) {
    start(r.download);
    return `downloaded ${r.download.name} (${sizeText(r.download.bytes)})`;
  }
  return r.files.length ? `wrote ${r.files.join(', ')}` : null;
}

/**
 * Upload a picked file into a one-time slot of the host; resolves with the
 * slot's token for the call that reads it. A refusal (too large, expired)
 * rejects with the server's one line, which names the file as the user
 * picked it.
 */
export async function uploadPicked(
  api: Pick<MechStudioApi, 'transfer'>,
  file: File,
  post: typeof fetch = fetch,
): Promise<string> {
  const slot = await api.transfer.slot(file.name, file.size);
  let res: Response;
  try {
    res = await post(slot.url, { method: 'POST', body: file, headers: { 'content-type': 'application/octet-stream' } });
  } catch {
    throw new Error(`${file.name} could not be sent to the server (the connection failed): pick it again`);
  }
  if (!res.ok) throw new Error((await res.text()).trim() || `${file.name} could not be uploaded (HTTP ${res.status})`);
  return slot.token;
}
