/**
 * The project's domain text as the editors see it: the shared grammar
 * (src-shared/grammar/domain-spec.ts, the same parser the engine uses), so
 * each domain gets the right editor (grid, database/query, smart meter,
 * custom metric, simple line/ring/clique/hamming) and a text the engine
 * would refuse is shown with the engine's message before anything runs.
 */
import {
  domainSpecSize,
  domainSpecText,
  parseDomainSpecText,
  type DomainSpec,
} from '../../src-shared/grammar/domain-spec';
import type { ProjectInput } from '../../src-shared/protocol/index';

/** A parsed domain text, or 'other' (with the grammar's message) when it does not parse. */
export type DomainForm = DomainSpec | { kind: 'other'; text: string; error: string };

export function parseDomainText(text: string): DomainForm {
  const r = parseDomainSpecText(text);
  return r.ok ? r.spec : { kind: 'other', text: r.text, error: r.error };
}

/** The canonical text of a form (an unparsed text as it was). */
export function domainText(f: DomainForm): string {
  return f.kind === 'other' ? f.text : domainSpecText(f);
}

/** Number of secrets of a domain form (NaN when unknown: a file, or a text that does not parse). */
export function domainSize(f: DomainForm): number {
  return f.kind === 'other' ? NaN : domainSpecSize(f);
}

/**
 * A project domain as an editor or view sees it: the entry, its parsed form (null for an explicit or unknown domain),
 * that form when a grid.
 */
interface DomainView {
  dom: ProjectInput['domains'][number] | undefined;
  form: DomainForm | null;
  grid: Extract<DomainForm, { kind: 'grid' }> | null;
}

/** The project's domain `id` (an item's `domain`; undefined finds none) as a DomainView. */
export function domainView(project: ProjectInput, id: string | undefined): DomainView {
  const dom = project.domains.find((d) => d.id === id);
  const form = dom && typeof dom.domain === 'string' ? parseDomainText(dom.domain) : null;
  return { dom, form, grid: form?.kind === 'grid' ? form : null };
}
