/**
 * Which domains the privacy-type explorer (SPEC §6) opens on: small lines,
 * rings, cliques and grids (at most 12 points). The engine computes the
 * explorer's views as an `explorer` job; this only decides, from the domain's
 * text, whether to ask.
 */
import { parseDomainSpecText } from '../../src-shared/grammar/domain-spec';

/** Largest domain the explorer opens on. */
const EXPLORER_MAX_POINTS = 12;

/** `text` when it is a small line, ring, clique or grid (2 to 12 points), else null. */
export function explorerDomainText(text: string): string | null {
  const r = parseDomainSpecText(text);
  if (!r.ok) return null;
  const f = r.spec;
  const n =
    f.kind === 'line' || f.kind === 'ring' || f.kind === 'clique'
      ? f.n
      : f.kind === 'grid'
        ? f.rows * f.cols
        : Infinity;
  return n >= 2 && n <= EXPLORER_MAX_POINTS ? text.trim() : null;
}
