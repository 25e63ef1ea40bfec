import { MechError, invalid, messageOf } from '../../src-shared/errors';
import { ANSWER_DOMAIN_BUILDERS } from './answer-domains';
import { cliqueDomain } from './clique';
import { parseCustomMetricCsv, type MetricProgress } from './custom-metric';
import { databaseDomain } from './database';
import type { Domain } from './domain';
import { graphDomainFromEdgeList } from './graph';
import { gridDomain } from './grid';
import { hammingCubeDomain } from './hamming-cube';
import { lineDomain } from './line';
import { ringDomain } from './ring';
import { readRegularTextFile } from './read-text-file';
import {
  DOMAIN_SPEC_FORMS,
  parseDomainSpecText as parseDomainGrammar,
  type DomainSpec,
} from '../../src-shared/grammar/domain-spec';

/**
 * Domain text -> Domain. The grammar itself (forms, numbers, options, the
 * messages) is src-shared/grammar/domain-spec.ts, shared with the CLI help
 * and the app's editors; here a parsed DomainSpec is built: the closed-form
 * domains by their builders, graph:FILE and csv:FILE by reading the file
 * with the engine's guarded reader. A malformed text is MechError
 * 'invalid-input' with the grammar's message; a domain too large to build is
 * 'too-large'. Each built domain's `spec` is canonical and parses back to
 * the same domain.
 */
export { DOMAIN_SPEC_FORMS };

/** A parsed domain text (the shared grammar's DomainSpec). */
export type ParsedDomainSpec = DomainSpec;

export interface TextReader {
  readText(path: string): string;
}

/** Default reader: the engine's guarded reader (regular files only, byte cap, errors without content). */
const defaultReader = (what: string): TextReader => ({ readText: (p) => readRegularTextFile(p, what) });

/**
 * A domain text parsed into its kind and numbers, WITHOUT building the
 * domain (no allocation proportional to its size): the admission estimate
 * (jobs/admission.ts) sizes a job from this. MechError 'invalid-input' when
 * the text does not parse.
 */
export function parseDomainSpecText(spec: string): { text: string; parsed: ParsedDomainSpec } {
  const r = parseDomainGrammar(spec);
  if (!r.ok) invalid(r.error);
  return { text: r.text, parsed: r.spec };
}

type FileSpec = Extract<DomainSpec, { kind: 'graph' | 'csv' }>;
type BuiltSpec = Exclude<DomainSpec, FileSpec>;
const isFileSpec = (d: DomainSpec): d is FileSpec => d.kind === 'graph' || d.kind === 'csv';

/** graph:FILE / csv:FILE: read the file (guarded) and build the graph or validated custom metric from it. */
function buildFromFile(d: FileSpec, io: TextReader | undefined, onProgress: MetricProgress | undefined): Domain {
  const what = d.kind === 'graph' ? 'edge-list file' : 'distance file';
  const reader = io ?? defaultReader(what);
  let content: string;
  try {
    content = reader.readText(d.file);
  } catch (e) {
    if (e instanceof MechError) throw e;
    invalid(`cannot read ${what} '${d.file}': ${messageOf(e)}`);
  }
  return d.kind === 'graph'
    ? graphDomainFromEdgeList(content, d.file)
    : parseCustomMetricCsv(content, d.file, undefined, onProgress);
}

type Builders = { [K in BuiltSpec['kind']]: (d: BuiltSpec & { kind: K }) => Domain };

/** The builder of each closed-form kind. */
const BUILDERS: Builders = {
  line: (d) => lineDomain(d.n),
  ring: (d) => ringDomain(d.n),
  clique: (d) => cliqueDomain(d.n),
  hamming: (d) => hammingCubeDomain(d.bits),
  ...ANSWER_DOMAIN_BUILDERS,
  grid: (d) => gridDomain(d.rows, d.cols, d.step, d.metric),
  db: (d) => databaseDomain(d.u, d.v, { metric: d.metric, absent: d.absent }),
};

const buildSpec = (d: BuiltSpec): Domain => (BUILDERS[d.kind] as (d: BuiltSpec) => Domain)(d);

/** Build a closed-form domain; a builder's refusal names the domain text, an allocation failure is 'too-large'. */
function buildNamed(text: string, d: BuiltSpec): Domain {
  try {
    return buildSpec(d);
  } catch (e) {
    if (e instanceof MechError) throw new MechError(e.code, `domain '${text}': ${e.message}`, e.detail);
    if (e instanceof RangeError)
      throw new MechError('too-large', `domain '${text}' is too large to build (${e.message})`);
    throw e;
  }
}

/** Domain text -> Domain (the file of graph:FILE / csv:FILE read through `io`, default the guarded reader). */
export function parseDomainSpec(spec: string, io?: TextReader, onProgress?: MetricProgress): Domain {
  const { text, parsed } = parseDomainSpecText(spec);
  return isFileSpec(parsed) ? buildFromFile(parsed, io, onProgress) : buildNamed(text, parsed);
}
