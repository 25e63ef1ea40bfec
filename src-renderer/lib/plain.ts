/**
 * Plain language for user-facing text: references to the
 * specification's sections ("SPEC §5") and its notation ("mu Phi = pi",
 * "corner priors") become the glossary's words. Engine text (case-study
 * findings, notes) passes through plainText() where it is shown; the terms
 * themselves are explained in GLOSSARY (views/GlossaryView.svelte).
 */

interface GlossaryEntry {
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
    .replace(
      new RegExp(`the ${SEC} (\\w+)`, 'g'),
      (_, n: string, w: string) => `the ${w} (see the glossary: ${topic(n)})`,
    )
    .replace(new RegExp(`,?\\s*${SEC}`, 'g'), (_, n: string) => ` (see the glossary: ${topic(n)})`)
    .replace(/\bmu Phi = pi\b|μ\s*Φ\s*=\s*π/g, 'the weights that mix the corner priors into this prior')
    .replace(/\bcorner priors\b/g, 'corner priors (see the glossary)')
    .replace(
      PRIVATE_AT,
      (_, e: string, noun: string) =>
        `${noun === 'privacy' ? 'privacy' : 'private'} at ${e === 'eps' ? 'ε' : `ε = ${e}`}`,
    )
    .replace(/\beps-LDP\b/g, 'locally private at ε')
    .replace(/\beps\b/g, 'ε');
}

/**
 * "eps*d2-private", "0.5*d-private", "eps*d_inf-privacy": the level of privacy in the notation of the specification.
 */
const PRIVATE_AT = /\b(eps|\d+(?:\.\d+)?)\s*[*·]\s*d(?:2|_2|1|_1|_h|_inf|∞)?[- ](private|privacy)\b/g;

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
    id: 'effective-epsilon',
    term: 'Effective ε',
    text: 'The privacy a channel actually achieves: the largest ln(C[x][y] / C[x′][y]) / d(x, x′) over all pairs of secrets and reports. A mechanism is private at level ε when its effective ε is at most ε; the privacy check computes it exactly from the channel.',
  },
  {
    id: 'truncated-geometric',
    term: 'Truncated geometric',
    text: 'For numbers on a line (counts, sums): the true value plus two-sided geometric noise with ratio e^(−ε), the probability beyond the ends folded onto them. For counting queries no private mechanism is more useful to any user once their best remap is applied.',
  },
  {
    id: 'randomised-response',
    term: 'Randomised response',
    text: 'Report the true value with probability e^ε / (e^ε + k − 1) and each of the other k − 1 values with probability 1 / (e^ε + k − 1). It ignores distances: the right choice when every two secrets must be equally hidden.',
  },
  {
    id: 'exponential',
    term: 'Exponential mechanism',
    text: 'Report y with probability proportional to exp(−ε d(x, y) / 2): near values likelier, far ones exponentially rarer. Always ε·d-private; often far from the best possible.',
  },
  {
    id: 'laplace',
    term: 'Row-normalised Laplace',
    text: 'Report y with probability proportional to exp(−ε d(x, y)). Normalising each row costs privacy: on a bounded domain it is only guaranteed 2ε·d-private, which the app states beside it.',
  },
  {
    id: 'planar-laplace',
    term: 'Planar Laplace',
    text: 'The standard mechanism for locations (geo-indistinguishability): the true place moved by noise whose density falls as e^(−ε r) with the distance r, then snapped to the grid. Private by construction at level ε per km.',
  },
  {
    id: 'symmetric',
    term: 'Symmetric graph',
    text: 'For domains where every point sees the same number of points at each distance (rings, cliques, Hamming cubes): C[y][y′] = e^(−ε d(y, y′)) divided by the same sum for every row, the tight-constraints mechanism in closed form.',
  },
  {
    id: 'losses',
    term: 'Losses: wrong guesses, right guesses, distance, squared distance',
    text: 'What a guess of the secret costs. Wrong guesses: 1 when the guess is wrong, 0 when right (its opposite is utility, the probability of a right guess). Right guesses: 1 when the guess is right (to measure how often the secret is revealed). Distance: how far the guess is from the secret (km on grids). Squared distance: its square, which weighs large errors more. In project files and on the command line they are named bin, nib, dist and dist2.',
  },
  {
    id: 'bound-gap',
    term: 'Certified bound and gap',
    text: 'A number that no private mechanism can beat, proven by the solver (a lower bound on the best possible expected loss). The gap is how far the mechanism shown may be from the best possible: "within 2% of the best possible (certified)" means no private mechanism has an expected loss more than 2% lower.',
  },
  {
    id: 'lp-models',
    term: 'Privacy constraints of the LP: exact, edges, spanner',
    text: 'exact: the privacy condition on every pair of secrets (the true problem). edges: only neighbouring pairs, exact when distances are path lengths along them (Manhattan grids, lines). spanner: a sparse set of pairs at a slightly stricter level, faster but only near the best; it is used when asked for, and its gap is then against its own optimum.',
  },
  {
    id: 'usefulness',
    term: '(a, b)-usefulness',
    text: 'For numeric answers: the reported value is within a of the true one with probability at least 1 − b, for every true answer. Smaller b at a given a is more useful.',
  },
  {
    id: 'levels',
    term: 'Power levels (quantisation levels v)',
    text: 'A smart-meter reading rounded down into one of v equal bands of watts (level 0 is the lowest band, the top level holds everything above). Privacy is stated per level step: two readings one level apart are hard to tell apart.',
  },
  {
    id: 'percentile',
    term: 'Percentile level',
    text: 'The level that a given share of the day’s readings do not exceed: at the 95th percentile, 95% of the readings are at that level or below. Like the rounded average, it moves by at most one level when every reading moves by one level.',
  },
  {
    id: 'laplace-noise',
    term: 'Laplace noise (per reading)',
    text: 'Random noise added to each reading, as likely to push up as down, its typical size (scale) the unit of watts divided by ε. Two days whose readings differ by one unit in total are then e^ε-indistinguishable.',
  },
  {
    id: 'error-figures',
    term: 'Mean absolute error and RMS error',
    text: 'How far the released readings are from the true ones: the average of the absolute differences, and the square root of the average squared difference (which weighs large errors more), in the readings’ unit.',
  },
  {
    id: 'trace-metric',
    term: 'Whole trace or each reading: d∞ and d1',
    text: 'What a trace’s privacy protects. d∞ (max over readings): days whose readings all differ by at most k levels are protected together, so ε is shared by all readings (ε′ = ε / number of readings). d1 (sum over readings): changes add up over readings, each reading gets ε on its own, and a whole day’s pattern is protected less.',
  },
  {
    id: 'sensitivity',
    term: 'Keeps the guarantee (uniform sensitivity)',
    text: 'A number computed from the data (an average, a percentile) keeps a mechanism’s guarantee on the data when every change of its answer comes from data that far apart: it then moves by at most one step for each step of change in the data, and no less. The exact average of whole levels does not (it moves in fractions of a level); the rounded average does.',
  },
  {
    id: 'stale',
    term: 'Stale result',
    text: 'A result computed from inputs that have since changed. It stays visible, marked as stale, until you compute again; undoing the change makes it current again.',
  },
];
