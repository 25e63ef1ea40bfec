/**
 * Project file versions. A file names its version; version 2 is the one this
 * program writes and validates (project.ts projectSchema). A file of an
 * earlier version is brought to the current one by one migration per step,
 * applied when it is read, so that the readers see one shape only:
 *
 * - 1 -> 2: a kept mechanism result of version 1 may carry its construction
 *   facts as a flat `info` record of display values instead of the typed
 *   `facts`; it is read onto `facts`, the values without a typed place kept
 *   as `factsAsRecorded` (legacy-facts.ts).
 *
 * A file of a later version than this program's is refused with one message
 * naming its version.
 */
import { factsFromInfo, legacyInfoSchema } from './legacy-facts';

export const PROJECT_VERSION = 2;

/**
 * A project as a file of the current version holds it, or the one problem that stops the migration (`path` into the
 * file).
 */
type ProjectMigration = { ok: true; project: unknown } | { ok: false; message: string; path: (string | number)[] };

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A kept result of version 1 in the shape of version 2 (the problem, with its path inside the result, when its `info`
 * is no record of values).
 */
function keptResultV2(kept: unknown): { ok: true; kept: unknown } | { ok: false; message: string; path: string[] } {
  if (!isRecord(kept) || !isRecord(kept.result)) return { ok: true, kept };
  const r = kept.result;
  if (r.type !== 'mechanism' || !Object.hasOwn(r, 'info') || Object.hasOwn(r, 'facts')) return { ok: true, kept };
  const { info, ...rest } = r;
  const parsed = legacyInfoSchema.safeParse(info);
  if (!parsed.success)
    return {
      ok: false,
      message: 'the facts of an earlier version must be names with numbers, text or yes/no',
      path: ['result', 'info'],
    };
  const { facts, recorded } = factsFromInfo(parsed.data, typeof r.kind === 'string' ? r.kind : '', r.lp !== undefined);
  return {
    ok: true,
    kept: { ...kept, result: { ...rest, facts, ...(recorded.length ? { factsAsRecorded: recorded } : {}) } },
  };
}

/** Version 1 -> 2: the kept mechanism results with a flat `info` get typed `facts`; nothing else changes. */
function migrateV1(p: Json): ProjectMigration {
  if (!isRecord(p.results)) return { ok: true, project: { ...p, version: 2 } };
  const results: Json = {};
  for (const [key, kept] of Object.entries(p.results)) {
    const m = keptResultV2(kept);
    if (!m.ok) return { ok: false, message: m.message, path: ['results', key, ...m.path] };
    results[key] = m.kept;
  }
  return { ok: true, project: { ...p, version: 2, results } };
}

/**
 * A project read from a file (or sent by a client) in the shape of the current version: a version 1 file migrated,
 * a current one as it is. Anything that is not a project of a known version is returned as it is for the schema to
 * name what is wrong, except a later version, which is one message naming it.
 */
export function migrateProject(raw: unknown): ProjectMigration {
  if (!isRecord(raw) || raw.version === PROJECT_VERSION || !Object.hasOwn(raw, 'version'))
    return { ok: true, project: raw };
  if (raw.version === 1) return migrateV1(raw);
  const v = String(raw.version).slice(0, 20);
  if (typeof raw.version === 'number' && raw.version > PROJECT_VERSION) {
    return {
      ok: false,
      message: `project version ${v} is newer than this program reads (version ${PROJECT_VERSION}): open it with a newer Mechanism Studio`,
      path: [],
    };
  }
  return {
    ok: false,
    message: `project version ${v} is not one this program reads (version ${PROJECT_VERSION}, or 1, which is upgraded when read)`,
    path: [],
  };
}
