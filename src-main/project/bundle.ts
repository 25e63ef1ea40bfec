/**
 * A project as ONE file, for web mode's download and upload: a saved
 * project keeps the channels of its optimal LPs in NAME.channels/ beside it
 * (ch-ID.f64 doubles and ch-ID.json records), which a browser cannot carry
 * as a folder. A project without kept channels travels as its plain project
 * file (the CLI reads it too); one with kept channels as a JSON bundle:
 *
 *     { "format": "mechstudio-project-bundle", "version": 1,
 *       "project": { ...the project file... },
 *       "channels": { "ch-ID.json": "<record text>", "ch-ID.f64": "<base64 doubles>" } }
 *
 * Unpacked, the channels become a folder the channel store reads back (and
 * checks) like any NAME.channels/. Their total is capped
 * (MAX_BUNDLE_CHANNEL_BYTES) so the bundle stays under the upload cap.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MechError } from '../../src-shared/errors';

export const PROJECT_BUNDLE_FORMAT = 'mechstudio-project-bundle';
/** Kept channel bytes one bundle may carry (base64 makes them 4/3 larger: ~171 MiB, under the 256 MiB upload cap). */
export const MAX_BUNDLE_CHANNEL_BYTES = 128 * 2 ** 20;

const CHANNEL_FILE = /^ch-[0-9a-f]{32}\.(f64|json)$/;

/** The one file of a project: its JSON when `channelDir` holds no channel files, else a bundle with them. */
export async function projectFileText(project: unknown, channelDir: string | null): Promise<string> {
  const names = channelDir
    ? (await readdir(channelDir).catch(() => [] as string[])).filter((n) => CHANNEL_FILE.test(n)).sort()
    : [];
  if (names.length === 0) return JSON.stringify(project, null, 2) + '\n';
  const channels: Record<string, string> = {};
  let bytes = 0;
  for (const n of names) {
    const data = await readFile(join(channelDir!, n));
    bytes += data.length;
    if (bytes > MAX_BUNDLE_CHANNEL_BYTES)
      throw new MechError(
        'too-large',
        `the project's kept channels are over the ${MAX_BUNDLE_CHANNEL_BYTES / 2 ** 20} MiB one downloaded project may carry: save it on the server (Save on the server…), where they are kept in a folder beside it`,
      );
    channels[n] = n.endsWith('.json') ? data.toString('utf8') : data.toString('base64');
  }
  return JSON.stringify({ format: PROJECT_BUNDLE_FORMAT, version: 1, project, channels }) + '\n';
}

/**
 * The project in a file's text `text` (the user's file `name`, for the
 * messages): a bundle's channels are written into `channelDir` and its
 * project comes back as JSON text; a plain project file comes back as it is.
 */
export async function unpackProjectFile(text: string, name: string, channelDir: string): Promise<string> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return text; // the project reader names where the JSON breaks
  }
  const o = doc as { format?: unknown; version?: unknown; project?: unknown; channels?: unknown };
  if (o === null || typeof o !== 'object' || o.format !== PROJECT_BUNDLE_FORMAT) return text;
  if (o.version !== 1)
    throw new MechError(
      'invalid-input',
      `${name}: a project bundle of version ${String(o.version).slice(0, 20)}, this app reads version 1`,
    );
  if (o.project === null || typeof o.project !== 'object')
    throw new MechError('invalid-input', `${name}: the bundle holds no project`);
  const channels = o.channels ?? {};
  if (channels === null || typeof channels !== 'object' || Array.isArray(channels))
    throw new MechError('invalid-input', `${name}: the bundle's channels are not a record`);
  for (const [file, content] of Object.entries(channels)) {
    if (!CHANNEL_FILE.test(file) || typeof content !== 'string')
      throw new MechError(
        'invalid-input',
        `${name}: the bundle's channels hold an entry that is not a kept channel file (ch-ID.f64 or ch-ID.json)`,
      );
    // the channel store checks each channel when it reads it back (record, size, doubles)
    await writeFile(join(channelDir, file), file.endsWith('.json') ? content : Buffer.from(content, 'base64'), {
      mode: 0o600,
    });
  }
  return JSON.stringify(o.project);
}
