/**
 * Results kept in the project file (docs/app.md, "Files").
 *
 * Decision: results live IN the project file (`results`, keyed by item id),
 * not in a sidecar cache. A project then travels as one file (mail it, open
 * it on another machine: the 46-minute LP comes with it), the atomic save
 * that protects the project protects its results, and there is no cache
 * directory to clean or to get out of step with the file. Each kept result
 * carries the hash of the inputs it was computed from (the item's job
 * request with every reference resolved: domain text or metric, prior
 * values, loss, LP options, and for measures/checks the mechanism's own
 * hash), so a result whose inputs changed, in the app or by hand in the
 * file, is shown as stale, never as current.
 *
 * Pure functions: unit-tested in test/unit/renderer/lib/kept-results.test.ts.
 */
import { type ProjectInput, type KeptResult, type CheckResult, type JobResult } from '../../src-shared/protocol/index';
import { APP_REQUESTS, caseStudyRequest } from './project-model';
import { analysisRequest, mechanismRequest } from '../../src-shared/project/item-requests';

/** JSON with object keys sorted (so equal inputs give equal text whatever the key order). */
export function stableStringify(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : stableStringify(x))).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`).join(',')}}`;
}

/** 64-bit hash of a text as 16 hex digits (two independent 32-bit FNV-1a lanes; not cryptographic). */
export function hashText(s: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0).toString(16).padStart(8, '0') + (b >>> 0).toString(16).padStart(8, '0');
}

/** Request fields that do not change the answer (how it is carried back, how many threads solve it). */
const NOT_INPUTS = new Set(['inlineLimit', 'lpThreads', 'out']);

function requestText(req: object): string {
  const o: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(req)) if (!NOT_INPUTS.has(k)) o[k] = v;
  return stableStringify(o);
}

/** Hash of a mechanism's inputs; null when they cannot be resolved (unknown reference, file prior). */
function mechanismHash(project: ProjectInput, id: string): string | null {
  const m = (project.mechanisms ?? []).find((x) => x.id === id);
  if (!m) return null;
  try {
    return hashText(requestText(mechanismRequest(project, m, APP_REQUESTS)));
  } catch {
    return null;
  }
}

/** Hash of an item's inputs by result key (mechanism id, analysis id or 'case-study:ID'); null when unknown. */
export function itemHash(project: ProjectInput, key: string): string | null {
  if (key.startsWith('case-study:')) {
    const c = (project.caseStudies ?? []).find((x) => `case-study:${x.id}` === key);
    if (!c) return null;
    try {
      return hashText(requestText(caseStudyRequest(c)));
    } catch {
      return null;
    }
  }
  if ((project.mechanisms ?? []).some((m) => m.id === key)) return mechanismHash(project, key);
  const a = (project.analyses ?? []).find((x) => x.id === key);
  if (!a) return null;
  try {
    if (a.type === 'measure' || a.type === 'check') {
      const mh = mechanismHash(project, a.mechanism);
      if (mh === null) return null;
      // the channel is the mechanism's (its hash); the rest as the request would use it
      const req = analysisRequest(project, a, {
        ...APP_REQUESTS,
        source: { channelRef: 'placeholder' },
      }) as unknown as Record<string, unknown>;
      delete req.channel;
      delete req.channelRef;
      delete req.mechanism;
      return hashText(`${requestText(req)}|mechanism:${mh}`);
    }
    return hashText(requestText(analysisRequest(project, a, APP_REQUESTS)));
  } catch {
    return null;
  }
}

/** What the app holds for one item (the part of lib/item-result.ts ItemResult that is kept). */
export interface HeldResult {
  status: 'running' | 'done' | 'error';
  result?: JobResult;
  check?: CheckResult;
  hash?: string;
  computedAt?: string;
}

/** Most bytes of a project file with its results (the web host's messages are capped at 16 MiB). */
const MAX_KEPT_BYTES = 12 * 2 ** 20;

/**
 * The `results` section to save: every finished result of an item that
 * still exists, with its hash. Results are taken most expensive kind first
 * (LPs, then other mechanisms, then the rest) while they fit MAX_KEPT_BYTES;
 * `skipped` names those left out.
 */
export function keptResults(
  project: ProjectInput,
  held: Record<string, HeldResult | undefined>,
  maxBytes = MAX_KEPT_BYTES,
): { results: Record<string, KeptResult>; skipped: string[] } {
  const rank = (key: string): number => {
    const m = (project.mechanisms ?? []).find((x) => x.id === key);
    if (m) return m.kind === 'optimal' ? 0 : 1;
    return key.startsWith('case-study:') ? 1 : 2;
  };
  const keys = Object.keys(held)
    .filter((k) => held[k]?.status === 'done' && held[k]?.result && held[k]?.hash && itemHash(project, k) !== null)
    .sort((x, y) => rank(x) - rank(y));
  const results: Record<string, KeptResult> = {};
  const skipped: string[] = [];
  let bytes = 0;
  for (const k of keys) {
    const h = held[k]!;
    const entry: KeptResult = { hash: h.hash!, result: h.result! };
    if (h.computedAt) entry.computedAt = h.computedAt;
    if (h.check) entry.check = h.check;
    const size = JSON.stringify(entry).length;
    if (bytes + size > maxBytes) {
      skipped.push(k);
      continue;
    }
    bytes += size;
    results[k] = entry;
  }
  return { results, skipped };
}

/** The project as saved: its items plus the kept results (none when there are none). */
export function projectWithResults(
  project: ProjectInput,
  held: Record<string, HeldResult | undefined>,
  maxBytes = MAX_KEPT_BYTES,
): { project: ProjectInput; skipped: string[] } {
  const text = JSON.stringify(project);
  const copy = JSON.parse(text) as ProjectInput;
  delete copy.results;
  // the items themselves count against the budget (the whole file crosses the web host's message cap)
  const { results, skipped } = keptResults(project, held, Math.max(0, maxBytes - text.length));
  if (Object.keys(results).length) copy.results = results;
  return { project: copy, skipped };
}

/**
 * Split an opened project into its items and the results to show: a kept
 * result whose hash still matches its item's inputs is current; one that
 * does not is restored marked stale (shown with "inputs changed", never as current).
 */
export function restoreResults(project: ProjectInput): {
  project: ProjectInput;
  held: Record<string, HeldResult & { stale: boolean }>;
} {
  const kept = project.results ?? {};
  const items = { ...project };
  delete items.results;
  const held: Record<string, HeldResult & { stale: boolean }> = {};
  for (const [key, k] of Object.entries(kept)) {
    const now = itemHash(items, key);
    if (now === null) continue;
    // The host reads every project through projectSchema, whose output has kept results of earlier versions read
    // onto the current shape (a mechanism's flat `info` onto typed `facts`): what arrives is a current result.
    const h: HeldResult & { stale: boolean } = {
      status: 'done',
      result: k.result as JobResult,
      hash: k.hash,
      stale: now !== k.hash,
    };
    if (k.check) h.check = k.check;
    if (k.computedAt) h.computedAt = k.computedAt;
    held[key] = h;
  }
  return { project: items, held };
}

/**
 * True for the items whose computation may be long (an optimal LP, or anything needing one): never started by opening a
 * file.
 */
export function isExpensive(project: ProjectInput, key: string): boolean {
  const mech = (id: string): boolean => (project.mechanisms ?? []).some((m) => m.id === id && m.kind === 'optimal');
  if (mech(key)) return true;
  const a = (project.analyses ?? []).find((x) => x.id === key);
  if (!a) return false;
  if ('mechanism' in a) return mech(a.mechanism);
  if (a.type === 'sweep') return a.kinds.includes('optimal');
  return false;
}
