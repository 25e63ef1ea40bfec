/**
 * The page's exports (project.export): where each goes (a path placed by the policy, Electron's dialog, or web
 * mode's one-time download) and what it writes: a result's JSON, a project run's folder, the study report, a
 * channel's CSV (a construction's, or a kept LP channel's), and the release of a secrets CSV by apply.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { basename, extname, join } from 'node:path';
import {
  ApiError,
  MAX_APP_RELEASED_ROWS,
  MAX_APP_SECRETS_CHARS,
  parseJobRequest,
  type ApiParams,
  type ApplyResult,
  type DownloadOffer,
  type ExportResult,
  type ReleaseFile,
} from '../../src-shared/protocol';
import { readCsv } from '../../src-shared/csv/csv-reader';
import { keptRowSource, writeChannelCsv } from '../../src-worker/index';
import { checkDirTargetAsync, checkWriteTargetAsync, writeFileAtomicAsync } from '../fs/safe-fs';
import type { PathPolicy } from '../fs/workspace';
import type { ChannelStore } from '../dispatcher/channel-store';
import { fail, toJobError, type Dialogs } from './api-host';
import { namedAs, placeDomainFiles, placed, redactForFiles } from './page-paths';
import type { ProjectStore } from './project-store';
import { studyReportPage } from './report-export';
import { downloadName, type Transfers } from './transfers';

/** An export request after validation (exportRequestSchema). */
type ParsedExportRequest = ApiParams<'project.export'>[0];

/**
 * Where an export goes: a path (given, or chosen in the native dialog), or a private file offered as a download under
 * `name`.
 */
interface Target {
  path: string;
  download?: { name: string; mime: string };
}

/** What the exports need of the host: its version, store, path policy, and the shell's dialogs or downloads. */
interface ExportHost {
  version: string;
  store: ProjectStore;
  paths: PathPolicy;
  dialogs?: Dialogs;
  transfers?: Transfers;
  channels?: ChannelStore;
}

/** The host's exports, each answered as the files written or the download offered (never a private path). */
export class HostExports {
  private readonly opts: ExportHost;

  constructor(opts: ExportHost) {
    this.opts = opts;
  }

  /**
   * Where an export goes: the path given (placed by the policy), else the
   * native dialog's choice (Electron; null = cancelled), else a private file
   * offered as a download under `name` (web mode).
   */
  private async target(
    given: string | null | undefined,
    what: string,
    name: string,
    mime: string,
  ): Promise<Target | null> {
    const path = await placed(this.opts.paths, given, what);
    if (path !== undefined) return { path };
    const ext = extname(name).slice(1);
    if (this.opts.dialogs) {
      const chosen = await this.opts.dialogs.saveFile(name, [{ name: ext.toUpperCase(), extensions: [ext] }]);
      return chosen === null ? null : { path: chosen };
    }
    if (this.opts.transfers)
      return { path: await this.opts.transfers.newFile(`.${ext}`, downloadName(name)), download: { name, mime } };
    return fail('invalid-input', `export: give the ${what} (this host has no file dialog)`);
  }

  /** The answer of an export written to `t`: the files, or the download offered (never the private path). */
  private async delivered(t: Target, files: string[]): Promise<ExportResult> {
    if (!t.download) return { files };
    const download: DownloadOffer = await this.opts.transfers!.offer(t.path, t.download.name, t.download.mime);
    return { files: [], download };
  }

  /** Write an export to `t`, its errors naming the download as the user will know it. */
  private async writing(t: Target, write: () => Promise<string[]>): Promise<ExportResult> {
    try {
      return await this.delivered(t, await write());
    } catch (e) {
      if (t.download) await rm(t.path, { force: true });
      throw t.download ? namedAs(e, [[t.path, t.download.name]]) : e;
    }
  }

  async export(req: ParsedExportRequest): Promise<ExportResult> {
    if (req.kind === 'channel-csv') return this.exportChannel(req);
    if (req.kind === 'kept-channel-csv') return this.exportKeptChannel(req);
    if (req.kind === 'result-json') {
      const t = await this.target(req.path, 'JSON path', req.name ?? 'result.json', 'application/json');
      if (t === null) return { files: [] };
      return this.writing(t, async () => [
        await writeFileAtomicAsync(t.path, JSON.stringify(req.result, null, 2), 'result JSON'),
      ]);
    }
    if (req.kind === 'project-run') {
      // a run writes a folder of files: a path (or Electron's folder dialog); web mode has `mechstudio run` for it
      if (req.dir == null && !this.opts.dialogs)
        fail(
          'invalid-input',
          'export: give the output folder (a project run writes several files; or use mechstudio run)',
        );
      let dir = (await placed(this.opts.paths, req.dir, 'output folder')) ?? (await this.opts.dialogs!.chooseDir());
      if (dir === null) return { files: [] };
      if (!this.opts.store.exportRun) fail('internal', 'project export is not available');
      dir = await checkDirTargetAsync(dir, 'export folder');
      const projectPath = (await placed(this.opts.paths, req.projectPath, 'project')) ?? null;
      return { files: await this.opts.store.exportRun(req.project, projectPath, dir, this.opts.paths) };
    }
    if (req.kind === 'study-report') return this.exportReport(req);
    return this.exportApply(req);
  }

  /** The study report: files read through the path policy, kept channels checked again (host/report-export.ts). */
  private async exportReport(req: Extract<ParsedExportRequest, { kind: 'study-report' }>): Promise<ExportResult> {
    const projectPath = (await placed(this.opts.paths, req.projectPath, 'project')) ?? null;
    const t = await this.target(req.path, 'report path', req.name ?? 'study-report.html', 'text/html');
    if (t === null) return { files: [] };
    const { version, store, channels } = this.opts;
    const html = await studyReportPage(req, projectPath, this.opts.paths, {
      version,
      runCheck: store.runCheck?.bind(store),
      channels,
    });
    return this.writing(t, async () => [await writeFileAtomicAsync(t.path, html, 'study report')]);
  }

  private async exportChannel(req: Extract<ParsedExportRequest, { kind: 'channel-csv' }>): Promise<ExportResult> {
    const request = req.request;
    if (request.type !== 'mechanism' && request.type !== 'capacity')
      fail('invalid-input', 'channel-csv export needs a mechanism or capacity request');
    // an optimal LP would be solved again, unseen, for its CSV: its kept channel is exported instead
    if (request.type === 'mechanism' && request.kind === 'optimal')
      fail(
        'invalid-input',
        "an optimal mechanism's channel is exported from the channel the app keeps (kept-channel-csv): compute it first",
      );
    const t = await this.target(req.path, 'CSV path', req.name ?? 'channel.csv', 'text/csv');
    if (t === null) return { files: [] };
    const exportChannel = this.opts.store.exportChannel;
    if (!exportChannel) fail('internal', 'channel export is not available');
    const refs = await placeDomainFiles(request, this.opts.paths);
    await checkWriteTargetAsync(t.path, 'channel CSV');
    return this.writing(t, async () => {
      try {
        return await exportChannel(request, t.path);
      } catch (e) {
        throw new ApiError(await redactForFiles(toJobError(e), refs));
      }
    });
  }

  /** A kept channel (an optimal LP's) as SPEC §8 CSV, written from the kept doubles by the engine's streamed writer. */
  private async exportKeptChannel(
    req: Extract<ParsedExportRequest, { kind: 'kept-channel-csv' }>,
  ): Promise<ExportResult> {
    if (!this.opts.channels) fail('not-applicable', 'this host keeps no channels');
    const found = await this.opts.channels.locate(req.channelRef);
    if (!found.ok) fail('invalid-input', found.problem);
    const t = await this.target(req.path, 'CSV path', req.name ?? 'channel.csv', 'text/csv');
    if (t === null) return { files: [] };
    const target = await checkWriteTargetAsync(t.path, 'channel CSV');
    return this.writing(t, async () => {
      await writeChannelCsv(keptRowSource(found.channel, `kept channel ${req.channelRef}`), target);
      return [target];
    });
  }

  /**
   * Release a loaded secrets CSV (text) into a CSV file. The text
   * goes to a private temp file the worker streams (messages name it as the
   * user's file, `secretsName`); the released labels come back (at most
   * MAX_APP_RELEASED_ROWS) for the page's chart.
   */
  private async exportApply(req: Extract<ParsedExportRequest, { kind: 'apply' }>): Promise<ExportResult> {
    const secretsName = req.secretsName ?? 'the secrets CSV';
    if (req.secrets.length > MAX_APP_SECRETS_CHARS)
      fail(
        'too-large',
        `apply: ${secretsName} has ${req.secrets.length} characters, over the app's limit of ${MAX_APP_SECRETS_CHARS}; use mechstudio apply for larger files (it streams)`,
      );
    const t = await this.target(req.path, 'CSV path', req.name ?? 'released.csv', 'text/csv');
    if (t === null) return { files: [] };
    if (!this.opts.store.runApply) fail('internal', 'apply is not available');
    const tmpDir = await mkdtemp(join(tmpdir(), 'mechstudio-apply-'));
    const input = join(tmpDir, 'secrets.csv');
    const names: [string, string][] = [
      [input, secretsName],
      ...(t.download ? ([[t.path, t.download.name]] as [string, string][]) : []),
      [tmpDir, secretsName],
    ];
    try {
      await writeFile(input, req.secrets, { encoding: 'utf8', mode: 0o600 });
      const { result, released } = await this.runApply(req.request, input, t.path);
      const shown = t.download ? { ...result, csvPath: t.download.name } : result;
      // the release log's record of both files (the secrets as the page read them; the released CSV as written)
      const files = {
        input: await fileRecord(input, req.secretsName ?? 'secrets.csv'),
        output: await fileRecord(result.csvPath, t.download?.name ?? basename(t.path)),
      };
      return { ...(await this.delivered(t, [result.csvPath])), apply: { result: shown, released, ...files } };
    } catch (e) {
      if (t.download) await rm(t.path, { force: true });
      throw namedAs(e, names);
    } finally {
      await rm(tmpDir, { recursive: true, force: true });
    }
  }

  /** An apply job from the page's request with host-chosen input and output, and the first released labels. */
  private async runApply(
    request: Record<string, unknown>,
    input: string,
    out: string,
  ): Promise<{ result: ApplyResult; released: string[] }> {
    const parsed = parseJobRequest({ ...request, type: 'apply', input, out });
    if (!parsed.ok) throw new ApiError(parsed.error);
    if (parsed.value.type !== 'apply') fail('invalid-input', 'apply: not an apply request');
    const refs = await placeDomainFiles(parsed.value, this.opts.paths);
    await checkWriteTargetAsync(out, 'released CSV');
    let result: ApplyResult;
    try {
      result = await this.opts.store.runApply!(parsed.value);
    } catch (e) {
      throw new ApiError(await redactForFiles(toJobError(e), refs));
    }
    // the released labels: the first field of each row after the header (quoted when it holds a comma: "(2,3)")
    const read = readCsv(await readFile(result.csvPath, 'utf8'), { maxRows: MAX_APP_RELEASED_ROWS + 1 });
    return { result, released: read.ok ? read.rows.slice(1).map((r) => r.fields[0] ?? '') : [] };
  }
}

/** Name, size and SHA-256 of a file of a release. */
async function fileRecord(path: string, name: string): Promise<ReleaseFile> {
  const bytes = await readFile(path);
  return { name: basename(name), size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}
