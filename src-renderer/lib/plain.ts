/**
 * Plain language for user-facing text (issue 15, item 6): references to the
 * specification's sections ("SPEC §5") and its notation ("mu Phi = pi",
 * "corner priors") become the glossary's words. Engine text (case-study
 * findings, notes) passes through plainText() where it is shown; the terms
 * themselves are explained in GLOSSARY (views/GlossaryView.svelte).
 */

export interface GlossaryEntry {
  /** Stable anchor (data-testid glossary-ID). */
  id: string;
  term: string;
  text: string;
}

/** What each specification section is about, in the glossary's words. */
const SECTION_TOPIC: Record<string, string> = {
  '1': 'domains and distances',
  '2': 'mechanisms',
  '3': 'measures',
  '4': 'the privacy check',
  '5': 'regular priors and the best possible utility',
  '6': 'capacity',
  '7': 'reference values',
  '8': 'file formats',
};

/** Rewrite specification references and notation in a user-facing text. */
export function plainText(s: string): string {
  const topic = (n: string): string => SECTION_TOPIC[n] ?? 'terms';
  const SEC = 'SPEC §(\\d)(?:\\.\\d+)?';
  return s
    .replace(new RegExp(`(?:the\\s+)?${SEC}\\s+check`, 'g'), 'the privacy check')
    .replace(new RegExp(`as ${SEC} states`, 'g'), 'as expected')
    .replace(new RegExp(`Contrary to ${SEC}`, 'g'), 'Contrary to the usual rule')
    .replace(new RegExp(`\\s*\\(\\s*${SEC}\\s*\\)`, 'g'), (_, n: string) => ` (see the glossary: ${topic(n)})`)
    .replace(new RegExp(`,\\s*${SEC}(?=\\))`, 'g'), (_, n: string) => `; see the glossary: ${topic(n)}`)
    .replace(new RegExp(`the ${SEC} (\\w+)`, 'g'), (_, n: string, w: string) => `the ${w} (see the glossary: ${topic(n)})`)
    .replace(new RegExp(`,?\\s*${SEC}`, 'g'), (_, n: string) => ` (see the glossary: ${topic(n)})`)
    .replace(/\bmu Phi = pi\b|μ\s*Φ\s*=\s*π/g, 'the weights that mix the corner priors into this prior')
    .replace(/\bcorner priors\b/g, 'corner priors (see the glossary)');
}

export const GLOSSARY: GlossaryEntry[] = [
  {
    id: 'domain',
    term: 'Domain',
    text: 'The set of secret values (places on a grid, ages, databases) and a distance between them. Distances on grids are in km.',
  },
  {
    id: 'epsilon',
    term: 'ε (privacy parameter)',
    text: 'How much the output may tell apart two secrets: for secrets d apart, no output is more than e^(ε·d) times likelier under one than under the other. Smaller ε is more private. On a grid ε is per km. Fields accept expressions: ln 4, ln(2)/2, 2*ln 3.',
  },
  {
    id: 'level',
    term: 'Privacy level l within radius r',
    text: 'Another way to give ε on a map: any two places within r km are e^l-indistinguishable, so ε = l / r. Both l and r must be above 0.',
  },
  {
    id: 'mechanism',
    term: 'Mechanism (channel)',
    text: 'The randomised rule that turns a true secret into a reported value: a table of probabilities, one row per secret, each row summing to 1.',
  },
  {
    id: 'prior',
    term: 'Prior',
    text: 'What an observer believes before seeing any output: a probability for each secret (e.g. where people live). Uniform means every secret equally likely.',
  },
  {
    id: 'loss',
    term: 'Loss and expected loss',
    text: 'How bad a wrong guess is: binary (1 for a wrong guess), or the distance between the guess and the truth (in km on grids). The expected loss averages it under the prior with the best guess from each output.',
  },
  {
    id: 'utility',
    term: 'Utility',
    text: 'The probability that the best guess from the output is the true secret (binary gain). Higher is more useful, and less private.',
  },
  {
    id: 'leakage',
    term: 'Leakage (bits)',
    text: 'How much an output increases the chance of guessing the secret in one try, in bits: log2 of the ratio of the chances after and before.',
  },
  {
    id: 'check',
    term: 'Privacy check',
    text: 'An independent check of a channel: the largest ratio of two rows at any output, per unit of distance between the two secrets. A channel passes when it is at most the ε asked for.',
  },
  {
    id: 'regular',
    term: 'Regular prior',
    text: 'A prior that is a mix (with non-negative weights) of the corner priors. For a regular prior the best possible utility of any ε-private mechanism is known exactly; for other priors that bound does not apply and none is drawn.',
  },
  {
    id: 'corner',
    term: 'Corner priors',
    text: 'One prior per secret y: the probabilities e^(−ε·d(x,y)), normalised to sum 1 — how likely each secret looks when y is reported by the most concentrated private mechanism. The regular priors are exactly the mixes of these.',
  },
  {
    id: 'tight',
    term: 'Tight constraints',
    text: 'The mechanism that makes every privacy constraint hold with equality. It exists only when ε is large enough (the tight threshold); where it exists it has the best utility for every regular prior.',
  },
  {
    id: 'capacity',
    term: 'Capacity',
    text: 'The most any observer can learn from an ε-private mechanism on this domain, whatever the prior: the worst-case leakage in bits.',
  },
  {
    id: 'remap',
    term: 'Remap',
    text: 'Replacing each reported value by the best guess of the secret given that report (under the prior). It never makes the expected loss worse.',
  },
  {
    id: 'optimal',
    term: 'Optimal (LP)',
    text: 'The best mechanism found for a given prior and loss. Cheap constructions (planar Laplace, tight constraints, exponential, each with the optimal remap) are tried first, then a linear program searches for a better one; whichever has the smaller expected loss is returned and named. It is called optimal only when a certified bound proves that no private mechanism does more than 0.0001% better; otherwise the result says how far from the best possible it may be ("within X% of the best possible"). On large grids the program can take minutes to hours (give it a time limit); it is only started by its Compute button or Recompute all.',
  },
  {
    id: 'stale',
    term: 'Stale result',
    text: 'A result computed from inputs that have since changed. It stays visible, marked as stale, until you compute again; undoing the change makes it current again.',
  },
];
