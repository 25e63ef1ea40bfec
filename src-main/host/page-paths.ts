/**
 * The paths a page sends the host: placed by the path policy (web mode: inside the workspace, links followed); the
 * domain files a job will read (graph:FILE, csv:FILE), placed and checked before any worker opens them; and the
 * host's private paths and the files' contents kept out of the messages the page is shown.
 */
import { ApiError, type JobError } from '../../src-shared/protocol';
import { toJobError } from './api-host';
import { checkRegularFile, readRegularFile, REFUSE_SYSTEM_FS } from '../fs/safe-fs';
import { checkGraphFileName, type PathPolicy } from '../fs/workspace';
import { redactJobError } from './redact';

/**
 * A validated path placed by the policy (web mode: inside the workspace, links followed); undefined when the caller
 * left it out.
 */
export async function placed(
  paths: PathPolicy,
  p: string | null | undefined,
  what: string,
): Promise<string | undefined> {
  return p === undefined || p === null ? undefined : paths.place(p, what);
}

/** Replace the host's private file paths in an error with the names the user knows them by. */
export function namedAs(e: unknown, names: [string, string][]): ApiError {
  const err = toJobError(e);
  let message = err.message;
  for (const [path, name] of names) message = message.split(path).join(name);
  return new ApiError({ ...err, message });
}

/** A file a job's domain reads (graph:FILE, csv:FILE), found under any `domain` key of a request. */
export interface DomainFileRef {
  spec: string;
  file: string;
}

/** Domain files (graph:FILE, csv:FILE) the engine reads: the engine's own cap (ADMISSION_LIMITS.maxFileBytes). */
const MAX_DOMAIN_FILE_BYTES = 128 * 2 ** 20;

/**
 * Place every graph:FILE / csv:FILE domain of a request with the policy and,
 * when it confines, rewrite it to the placed path (so the engine reads the
 * file that was checked, and a relative path is the workspace's, not the
 * server's), then
 * check each before any worker opens it (regular file, under the engine's
 * byte cap). Returns the files, for the redaction of errors.
 */
export async function placeDomainFiles(req: unknown, paths: PathPolicy): Promise<DomainFileRef[]> {
  const refs: DomainFileRef[] = [];
  const walk = async (v: unknown, depth: number): Promise<void> => {
    if (v === null || typeof v !== 'object' || depth > 6) return;
    if (Array.isArray(v)) {
      if (v.length > 0 && typeof v[0] === 'object') for (const x of v) await walk(x, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    for (const [k, x] of Object.entries(o)) {
      const spec = k === 'domain' && typeof x === 'string' ? x.trim() : '';
      const m = /^(graph|csv):(.+)$/is.exec(spec);
      if (m && m[2]!.trim() !== '') {
        const what = `domain '${spec.slice(0, 200)}' file`;
        const file = await paths.place(m[2]!.trim(), what);
        if (paths.root !== null && m[1]!.toLowerCase() === 'graph') checkGraphFileName(file, m[2]!.trim(), what);
        // confined (web mode): the engine is handed the placed path; unconfined, the request stays as the page wrote it
        if (paths.root !== null) o[k] = `${m[1]!.toLowerCase()}:${file}`;
        refs.push({ spec, file });
      } else if (x !== null && typeof x === 'object') await walk(x, depth + 1);
    }
  };
  await walk(req, 0);
  await checkDomainFiles(refs, paths);
  return refs;
}

/**
 * Check every domain file of a request before any worker opens it (regular file, under the engine's byte cap; confined:
 * under the root, one link).
 */
async function checkDomainFiles(refs: DomainFileRef[], paths: PathPolicy): Promise<void> {
  for (const r of refs) {
    try {
      await checkRegularFile(r.file, 'domain file', MAX_DOMAIN_FILE_BYTES, paths.readOptions);
    } catch (e) {
      const err = toJobError(e);
      throw new ApiError({ ...err, message: `domain '${r.spec}': ${err.message}` });
    }
  }
}

/** A job error that may quote a domain file, with the file's text masked out (read again, bounded, only on error). */
export async function redactForFiles(err: JobError, refs: DomainFileRef[]): Promise<JobError> {
  const contents: string[] = [];
  for (const r of refs) {
    const text = await readRegularFile(r.file, 'domain file', MAX_DOMAIN_FILE_BYTES, REFUSE_SYSTEM_FS).catch(
      () => null,
    );
    if (text !== null) contents.push(text);
  }
  return redactJobError(
    err,
    refs.flatMap((r) => [r.spec, r.file, r.spec.slice(r.spec.indexOf(':') + 1).trim()]),
    contents,
  );
}
