/**
 * The case studies' findings in words, the one place they are written (the app's case-study page, the study
 * report and summary.md all call caseStudyFindingWords / caseStudyDetailWords): each study's engine code
 * (src-worker/casestudy/) returns its findings as a typed record (protocol/casestudy-findings.ts), and these
 * functions word it as markdown paragraphs and "- " bullets: the findings in plain words, the details in the
 * notation (the mathematics behind them). The geo study's words are in geo-words.ts.
 */
import type { CapacityStudyRow, CaseStudyFindings, FindingsOf, SensitivityFinding } from '../protocol/index';
import { geoDetailWords, geoFindingWords } from './geo-words';
import { shortNumber as f } from './number-words';

/** A study's findings and the mathematics behind them. */
interface Worded {
  findings: string[];
  details: string[];
}

/** A study's findings in words (markdown paragraphs and bullets; none for a part's answer, which has no findings). */
export function caseStudyFindingWords(r: CaseStudyFindings | undefined): string[] {
  return r ? worded(r).findings : [];
}

/** The mathematics behind a study's findings, in the notation (the page shows it behind a details toggle). */
export function caseStudyDetailWords(r: CaseStudyFindings | undefined): string[] {
  return r ? worded(r).details : [];
}

/** The words of each study's findings. */
const WORDED: { [K in CaseStudyFindings['kind']]: (r: FindingsOf<K>) => Worded } = {
  voting: votingWords,
  'leakage-bounds': leakageBoundsWords,
  'regular-prior': regularPriorWords,
  'sum-and-2count': sumAndCountsWords,
  geo: (r) => ({ findings: geoFindingWords(r), details: geoDetailWords(r) }),
  'smart-meter': smartMeterWords,
  'registration-date': registrationDateWords,
  capacities: capacitiesWords,
};

function worded(r: CaseStudyFindings): Worded {
  return (WORDED[r.kind] as (r: CaseStudyFindings) => Worded)(r);
}

/** The voting study's findings and their mathematics. */
function votingWords(r: FindingsOf<'voting'>): Worded {
  const { epsilon: eps, cities, count } = r;
  const below = r.ringBetterAt;
  const findings = [
    `At ε = ${f(eps)}:`,
    `- Six cities, every two equally easy to confuse: randomised response is the best possible mechanism here. The right city is guessed from its report with probability ${f(cities.uniform)} when every city is equally likely, ${f(cities.sizes)} with the cities' sizes.`,
    `- The number of yes votes (0 to 5): the truncated geometric mechanism guesses the right count with probability ${f(count.tgUniform)} when every count is equally likely, against ${f(count.ringUniform)} for the construction that closes the line of counts into a ring (it spends privacy on a wrap-around from 5 back to 0 that does not exist).${count.uniformPrior.regular ? ' No private mechanism does better.' : ''}`,
    `- In a close race (0.02, 0.13, 0.35, 0.35, 0.13, 0.02) the truncated geometric mechanism guesses right with probability ${f(count.tgRace)}, the ring construction ${f(count.ringRace)}. ${count.racePrior.regular ? 'The best possible is known for this prior (it is regular).' : 'The best possible is not known for this prior at this ε (it is not regular): the bound for regular priors does not apply to it.'}`,
    below.length === 0
      ? `- From ε = 0.1 to 3 the truncated geometric mechanism is never less useful than the ring construction on the count, under either prior (the chart of utility against ε).`
      : `- From ε = 0.1 to 3 the ring construction is more useful than the truncated geometric mechanism on the count at ε = ${below.join(', ')} (the chart of utility against ε).`,
  ];
  const details = [
    `At eps = ${f(eps)} (alpha = ${f(Math.exp(-eps))}):`,
    `- Cities: the symmetric-graph mechanism on the clique is randomised response, first row ${cities.firstRow.map((v) => f(v)).join(', ')}; its utility under the uniform prior is ${f(cities.uniform)} (= 2/7 at eps = ln 2, SPEC §7), which equals the single-orbit bound ${f(cities.cliqueBound)}: no eps-private mechanism does better on six equally distinguishable cities. Under the city-size prior (0.3, 0.25, 0.15, 0.12, 0.1, 0.08) its utility is ${f(cities.sizes)}; that prior is ${cities.sizesPrior.regular ? `regular (bound sum(mu) = ${f(cities.sizesPrior.muSum)})` : 'not regular, so the regular-prior bound does not apply to it'}.`,
    `- Yes votes: the truncated geometric mechanism has utility ${f(count.tgUniform)} under the uniform prior (4/9 at eps = ln 2) against ${f(count.ringUniform)} (4/11) for the symmetric mechanism of the line closed into a ring; the ring construction is valid (d_ring <= d_line) but wastes privacy budget on the wrap-around edge. The uniform prior is ${count.uniformPrior.regular ? `regular with sum(mu) = ${f(count.uniformPrior.muSum)}, and TG attains it: TG is optimal` : 'not regular'}.`,
    `- Under the close-race prior (0.02, 0.13, 0.35, 0.35, 0.13, 0.02) TG gives ${f(count.tgRace)} and the ring mechanism ${f(count.ringRace)}. This prior is ${count.racePrior.regular ? `regular (bound ${f(count.racePrior.muSum)})` : `NOT regular at this eps (min mu = ${f(count.racePrior.minMu)} at ${count.racePrior.minMuLabel}), so the regular-prior bound sum(mu) does not apply to it; quoting it would be a claim the theorem does not make`}.`,
    below.length === 0
      ? `- Across eps = 0.1..3 TG is never below the ring mechanism on the count, under either prior (chart count-utility-vs-eps).`
      : `- Across eps = 0.1..3 the ring mechanism beats TG on the count at eps = ${below.join(', ')} (chart count-utility-vs-eps).`,
  ];
  return { findings, details };
}

/** The leakage-bounds study's findings and their mathematics. */
function leakageBoundsWords(r: FindingsOf<'leakage-bounds'>): Worded {
  const { u, values: vs, outputsV: vR, outputs: rs } = r;
  const looser = r.looser.map(
    (l) =>
      `r = ${l.r} at ${l.count === 1 ? `eps = ${l.from}` : `${l.count} eps values from ${l.from} to ${l.to}`} (at eps = ${l.from}: ${f(l.bound)} against ${f(l.anyR)} bits)`,
  );
  const findings = [
    `The most a mechanism with standard differential privacy can reveal about a database of ${u} people, each with one of v values: this bound is reached by some mechanism, so it is the exact worst case, not an estimate.`,
    `- At ε = 1: ${vs.map((x) => `${x.v} values: ${f(x.eps1)} bits of the ${f(x.holds)} bits the database holds`).join('; ')}.`,
    `- About one person (everyone else known) it reveals at most ${f(r.individualEps1)} bits at ε = 1, however many people there are: the guarantee is per person, and what it reveals about the whole database grows with their number.`,
    `- A mechanism with only r possible outputs cannot reveal more than log2 r bits; the formula that counts outputs is not always the tighter bound (see the mathematics), so take the smaller of the bounds.`,
  ];
  const details = [
    `Databases of u = ${u} individuals with v values each, Hamming metric (standard eps-DP). The bound u log2(v e^eps / (v - 1 + e^eps)) is reached by some mechanism under the uniform prior, so it is the exact worst case, not an estimate.`,
    `- At eps = 1: ${vs.map((x) => `v = ${x.v}: ${f(x.eps1)} bits (of ${f(x.holds)} bits of secret)`).join('; ')}. At eps = 0.1: ${vs.map((x) => `v = ${x.v}: ${f(x.eps01)}`).join('; ')} bits.`,
    `- For small eps the bound is about u (v-1)/v eps log2(e) bits, linear in eps and nearly independent of v; for large eps it saturates at u log2 v (the whole database). The larger v, the later it saturates (chart bound-vs-eps).`,
    `- About one individual (others known) an eps-DP mechanism leaks at most log2(e^eps) = eps log2(e) bits: ${f(r.individualEps1)} bits at eps = 1, whatever u and v. eps-DP is a per-individual guarantee; the total leakage about a database of ${u} grows with u.`,
    [
      `- With at most r outputs (v = ${vR}) the SPEC §5 formula gives ${rs.map((x) => `r = ${x.r}: ${f(x.atLow)} bits at eps = ${r.lowEps}, ${f(x.eps1)} at eps = 1`).join('; ')}. Above small eps it is essentially log2 r: a mechanism with r outputs cannot leak more than log2 r bits.`,
      `- It improves on the simple min(log2 r, any-r bound) by at most ${f(r.bestGain, 3)} bits on this grid${r.bestAt ? ` (r = ${r.bestAt.r}, eps = ${r.bestAt.eps})` : ''}${looser.length ? `, and it is LOOSER than the any-r bound for ${looser.join('; ')}. So the formula alone is not the best bound: take the minimum of the bounds (the chart plots the formula as stated)` : ''}.`,
    ].join('\n'),
  ];
  return { findings, details };
}

/** The regular-prior study's findings and their mathematics. */
function regularPriorWords(r: FindingsOf<'regular-prior'>): Worded {
  const { u, marginal: p, threshold, cases, from, to } = r;
  const v = p.length;
  const findings = [
    `${u} individuals with ${v} possible values each, every individual independently distributed as (${p.join(', ')}): the population has a product prior on ${Math.pow(v, u)} databases.`,
    threshold !== null
      ? `- The prior is regular (the best-possible bounds apply to it) from ε = ${f(threshold, 6)} on; below that they do not apply.`
      : `- The prior is ${r.regularAtStart ? 'regular' : 'not regular'} over the whole range ${from} to ${to}.`,
    ...cases.map((c) =>
      c.regular
        ? `- ε = ${c.eps}: regular. Any mechanism private at this ε leaks at most ${f(c.formal)} bits about this population, sharper than the ${f(c.all)} bits that hold for every prior; the best product of per-individual mechanisms leaks ${f(c.achievedLeak)} bits (within the bound).`
        : `- ε = ${c.eps}: not regular. The formula for regular priors gives ${f(c.formal)} bits, but it is no bound here: a product of per-individual mechanisms leaks ${f(c.achievedLeak)} bits${exceeds(c) ? ', more than that: quoting it without checking that the prior is regular would understate the leakage' : ''}. Only the ${f(c.all)} bits that hold for every prior are a bound.`,
    ),
  ];
  const details = [
    `${u} individuals, ${v} values each, Hamming metric; each individual independently (${p.join(', ')}), a product prior on ${Math.pow(v, u)} databases (max pi = ${f(r.maxPi)}). mu solves mu Phi = pi and is the Kronecker power of the per-individual mu (SPEC §5).`,
    threshold !== null
      ? `- The prior is regular exactly for eps >= ${f(threshold, 6)} on this range (per individual: min p = ${f(Math.min(...p))} >= a/(1 + ${v - 1} a) with a = e^-eps${v === 4 && Math.abs(Math.min(...p) - 0.2) < 1e-12 ? ', i.e. a <= 1/2, eps >= ln 2' : ''}). Below it, mu has negative entries and the regular-prior bounds do not apply.`
      : `- The prior is ${r.regularAtStart ? 'regular' : 'not regular'} over the whole range ${from}..${to}.`,
    ...cases.map((c) =>
      c.regular
        ? `- eps = ${c.eps}: regular. Any eps-DP mechanism leaks at most log2(sum(mu)/max pi) = ${f(c.formal)} bits about this population, sharper than the all-priors bound ${f(c.all)} bits. The best product of per-individual mechanisms leaks ${f(c.achievedLeak)} bits (within the bound).`
        : `- eps = ${c.eps}: NOT regular (min mu = ${f(c.minMu)} at database ${c.minMuLabel}). The formula log2(sum(mu)/max pi) gives ${f(c.formal)} bits, but it is not a bound here: the product of per-individual LP-optimal mechanisms (each eps-LDP, so eps*d_h-private together) leaks ${f(c.achievedLeak)} bits${exceeds(c) ? `, MORE than that number. Quoting the prior-specific bound for this prior without first checking that the prior is regular (the theorem assumes it) would understate the leakage` : ''}. Only the all-priors bound ${f(c.all)} bits holds.`,
    ),
  ];
  return { findings, details };
}

/** A showcase eps where the best product mechanism leaks more than the regular-prior formula says. */
const exceeds = (c: { achievedLeak: number | null; formal: number | null }): boolean =>
  (c.achievedLeak ?? NaN) > (c.formal ?? NaN) + 1e-9;

type ThresholdQuery = FindingsOf<'sum-and-2count'>['sum'];

/** The sum-and-2count study's findings and their mathematics. */
function sumAndCountsWords(r: FindingsOf<'sum-and-2count'>): Worded {
  const { sumU, sumV, countU, to, step } = r;
  const wins = (q: ThresholdQuery): number =>
    q.points.filter((p) => p.tight !== null && p.tight > (p.geo ?? NaN) + 1e-12).length;
  const one = (name: string, q: ThresholdQuery): string => {
    if (q.epsilon === null || !q.points.length) return `- ${name}: no tight-constraints mechanism up to ε = ${to}.`;
    const [first, last] = [q.points[0]!, q.points[q.points.length - 1]!];
    return `- ${name}: the tight-constraints mechanism exists from ε = ${q.epsilon}. There it guesses the answer right with probability ${f(first.tight)} against ${f(first.geo)} for the truncated geometric mechanism; at ε = ${last.eps}, ${f(last.tight)} against ${f(last.geo)}. It is the more useful one at ${wins(q)} of ${q.points.length} values of ε, as expected: where it exists it is the best possible for equally likely answers.`;
  };
  const desc = (name: string, q: ThresholdQuery): string => {
    if (q.epsilon === null) return `- ${name}: no tight-constraints mechanism up to eps = ${to}.`;
    const [first, last] = [q.points[0]!, q.points[q.points.length - 1]!];
    return `- ${name}: the tight-constraints mechanism exists from eps = ${q.epsilon} (grid step ${step}; at ${q.lastMissing ?? 'the lower end'} min z = ${f(q.minZBelow)} < 0). At the threshold its utility is ${f(first.tight)} against ${f(first.geo)} for the geometric mechanism; at eps = ${last.eps}: ${f(last.tight)} against ${f(last.geo)}. Tight beats geometric at ${wins(q)} of ${q.points.length} eps values: it is optimal for the uniform prior where it exists (the uniform prior is regular there, SPEC §5).`;
  };
  const [sc, cc] = [r.sum.check, r.counts.check];
  const findings = [
    `The sum of ${sumU} values from 0 to ${sumV} (${r.sumN} possible answers) and two counts over ${countU} records (${r.countN} possible pairs of answers): from which ε the tight-constraints mechanism exists, and how often each mechanism guesses the answer right (every answer equally likely, best remap).`,
    one('The sum', r.sum),
    one('The two counts', r.counts),
    `- The truncated geometric mechanisms compared with it were checked on these answers: ${sc.passes && cc.passes ? 'both are private at the ε they are compared at' : 'one of them is NOT private at the ε it is compared at (see the mathematics)'}.`,
  ];
  const details = [
    `Sum of ${sumU} values in 0..${sumV}: ${r.sumN} answers, d(y, y') = ceil(|y - y'| / ${sumV}). Two counts over ${countU} records: ${r.countN} answers, Chebyshev distance. Utility = binary gain with an optimal remap under the uniform prior.`,
    desc('Sum', r.sum),
    desc('Two counts', r.counts),
    `- The geometric competitors are privacy-checked on the query metric: TG with eps/${sumV} on the sum has effective eps ${f(sc.effectiveEpsilon)} at eps = ${sc.at} (${sc.passes ? 'private' : 'NOT private'}); the two independent TGs with eps/2 have effective eps ${f(cc.effectiveEpsilon)} at eps = ${cc.at} (${cc.passes ? 'private' : 'NOT private'}). Their worst pairs are tight, but most constraints are slack: adjacent sums (d = 1) are separated by only e^(eps/${sumV}), and two answers differing in one count by e^(eps/2); the tight-constraints mechanism makes every constraint with the diagonal tight, which is why it wins.`,
    `- The threshold search scans eps = 0.1, 0.2, ... until the mechanism exists, then every ${step} step inside that last bracket; existence is assumed to persist above the threshold only where the sweep confirms it (a missing point is shown as a gap).`,
  ];
  return { findings, details };
}

/**
 * Why a released number keeps the guarantee or not, in the terms of the sensitivity check (chains of expansive steps).
 */
function sensitivityWhy(s: SensitivityFinding): string {
  if (s.uniform) return 'every answer pair is joined by a tight chain of 1-expansive steps';
  return s.counterexample ? `answers ${s.counterexample.labels.join(' and ')}: ${s.counterexample.reason}` : '';
}

/** Why a released number keeps the guarantee or not, in words (the smart-meter study's sensitivity table). */
export function sensitivityPlainWords(s: Pick<SensitivityFinding, 'uniform' | 'counterexample'>): string {
  if (s.uniform) return 'it moves in whole levels: every change of its answer comes from days one level apart';
  return s.counterexample
    ? `its answers ${s.counterexample.labels.join(' and ')} are closer than any two different days can be`
    : '';
}

/** The smart-meter study's findings and their mathematics. */
function smartMeterWords(r: FindingsOf<'smart-meter'>): Worded {
  const {
    readings: n,
    unit,
    sd,
    levels: L,
    levelWidth: width,
    percentile: pct,
    percentileLevel: pLevel,
    epsilon: eps,
    exact,
    off,
  } = r;
  const [sU, sV, sens] = [r.sensitivityU, r.sensitivityV, r.sensitivity];
  const top = L - 1;
  const findings = [
    `(a) One day of ${n} readings, one every ${f(r.stepSeconds)} s (average ${f(r.trueMean)} W, peak ${f(r.peak)} W). Every reading is released with Laplace noise added (random, as likely up as down), so that an observer can hardly tell apart two days whose readings differ by ${unit} W in total; how hard is set by the privacy parameter ε.`,
    ...r.noisy.map(
      (x) =>
        `- ε = ${x.eps} per ${unit} W: the released readings are off by ${f(x.mae)} W on average (expected ${f(x.b)} W), against a natural spread of ${f(sd)} W in the true readings: the noise is ${f((x.rmse ?? NaN) / (sd ?? NaN), 3)} times the signal, so ${(x.rmse ?? NaN) > (sd ?? NaN) ? 'single readings no longer show which appliance runs; only long high-power runs (oven, washing machine heating) remain visible as shifts of the noisy band' : 'the large appliances remain visible while the fridge cycles (about 95 W) are hidden'}.`,
    ),
    `(b) The day summed up in power levels: each reading falls in one of ${L} levels of ${width} W (level ${top} means ${width * top} W and above). The average level is ${f(r.avgLevel)} (${r.roundedAvg} rounded); the ${pct}th-percentile level is ${pLevel}.`,
    `- Two numbers are released, the rounded average level and the ${pct}th-percentile level, each with the noise of the truncated geometric mechanism (ε = ${eps}). When every reading of a day moves by at most one level, each of these numbers moves by at most one, so the release protects the whole day: days whose readings all differ by at most a few levels give releases that are hard to tell apart. The released rounded average is exactly right with probability ${f(exact.avg)} and off by ${f(off.avg)} levels on average; the released percentile is exactly right with probability ${f(exact.pct)} and off by ${f(off.pct)} levels on average.`,
    sens[0]!.uniform
      ? `- The exact average would be as safe to release here as the rounded one (checked on every day of ${sU} readings in levels 0 to ${sV}).`
      : `- Why the rounded average and not the exact one: the exact average moves in steps of 1/${sU} of a level while two different days are always at least a whole level apart, so the guarantee of the truncated geometric mechanism does not carry over to it. The rounded average and the percentile move in whole levels and keep it (checked on every day of ${sU} readings in levels 0 to ${sV}).`,
  ];
  const details = [
    `(a) Laplace noise of scale ${unit}/ε W on each reading: each reading is ε·d-private with d = |w − w′| / ${unit} W, and the trace ε·d₁-private (d₁ sums the per-reading distances): two days whose readings differ by ${unit} W in total are e^ε-indistinguishable.`,
    `(b) The day is a database of ${n} levels under the max metric d_inf (SPEC §1). Both queries are 1-sensitive under d_inf, so the truncated geometric mechanism on 0..${top} makes the release ε·d_inf-private on the day: days k levels apart give output distributions within a factor e^(${eps} k).`,
    `Uniform sensitivity, enumerated on {0..${sV}}^${sU} with d_inf (SPEC §4): ${sens.map((x) => `${x.query}: Delta = ${f(x.delta)}, ${x.uniform ? 'uniformly 1-sensitive' : 'NOT uniformly sensitive'}`).join('; ')}.`,
    sens[0]!.uniform
      ? `The exact average is uniformly 1-sensitive here, as SPEC §4 states.`
      : `Contrary to SPEC §4 ("average ... under the max metric ... 1-sensitive, uniformly"), the exact average of discrete values is NOT uniformly 1-sensitive under d_inf: adjacent answers s/${sU} and (s+1)/${sU} are ${f(1 / sU)} apart, but any two different databases are at d_inf >= 1, so no step between them is 1-expansive (${sensitivityWhy(sens[0]!)}). Hence a mechanism H on the average's answers is not certified by H∘avg being ε·d_inf-private, and TG is not universally optimal for it.`,
  ];
  return { findings, details };
}

/** The registration-date study's findings and their mathematics. */
function registrationDateWords(r: FindingsOf<'registration-date'>): Worded {
  const { days: D, scale: s, aMax, aLast, mid, curves } = r;
  const n = D + 1;
  const findings = [
    `The earliest registration date among the users, a day from 0 to ${D}, released in two ways: hiding any change of one user's date (randomised response on the ${n} possible dates), or hiding only shifts of about ${s} days (the truncated geometric mechanism on the line of dates, ε/${s} per day). The charts show how often the released date is off by more than a given number of days, for the true date where that is most likely.`,
    ...curves.map(
      (c) =>
        `- ε = ${c.eps}: randomised response reports the exact date with probability ${f(1 - (c.rr0 ?? NaN))} and is within ${aLast} days with probability at least ${f(1 - (c.rrLast ?? NaN))}; the ${s}-day mechanism is within 10 days with probability ${f(1 - (c.tg10 ?? NaN))}, within ${aLast} days with ${f(1 - (c.tgLast ?? NaN))}. Within how many days it is right 90% of the time: ${c.tg90 ?? `more than ${aMax}`} with the ${s}-day mechanism against ${c.rr90 ?? `more than ${aMax}`} with randomised response.`,
    ),
    `- Over the whole range (the second chart) randomised response only becomes useful when the error allowed approaches the full span: ${curves.map((c) => `at ε = ${c.eps} it is more than ${mid} days off with probability ${f(c.rrMid)}`).join(', ')}: a reported date says almost nothing.`,
    `- The price: the ${s}-day mechanism only hides dates about ${s} days apart (or one user's date shifted by ${s} days); dates years apart can be told apart, whereas randomised response hides any change of one user. For a statistic like the earliest date, where closeness is what users care about, it gives far better accuracy for a meaningful guarantee.`,
  ];
  const details = [
    `Under ε·d_h (Hamming) the minimum's answer graph is a clique, so randomised response on ${n} values is the utility-optimal, symmetric choice; under (ε/${s})·d_1 (Manhattan) the truncated geometric mechanism with ε/${s} on the line is. (a, b)-usefulness: b(a) = max over true dates of P(|reported − true| > a); randomised response has b(0) = ${curves.map((c) => `${f(c.rr0)} at ε = ${c.eps}`).join(', ')}.`,
    `(ε/${s})·d_1 guarantees e^ε indistinguishability for dates ${s} days apart; ε·d_h for any change of one user.`,
  ];
  return { findings, details };
}

/** A grid's domain text in words: "grid:3x3" as "3 x 3", "grid:2x2:metric=manhattan" as "2 x 2 Manhattan". */
function gridWords(spec: string): string {
  const m = /^grid:(\d+)x(\d+)(:metric=manhattan)?/.exec(spec);
  return m ? `${m[1]} x ${m[2]}${m[3] ? ' Manhattan' : ''}` : spec;
}

/** The capacities study's findings and their mathematics, from the rows of every domain. */
function capacitiesWords(r: FindingsOf<'capacities'>): Worded {
  const { epsilon: eps, rows } = r;
  const n = (x: number | null): number => x ?? NaN;
  const diff = rows.filter((x) => x[6] !== null).map((x) => Math.abs(n(x[3]) - n(x[6])));
  const diffA = rows.filter((x) => x[7] !== null).map((x) => Math.abs(n(x[4]) - n(x[7])));
  const family = (fam: string) => rows.filter((x) => x[0] === fam);
  const bits = (fam: string, name: (x: CapacityStudyRow) => string): string =>
    family(fam)
      .map((x) => `${name(x)}: ${f(x[5])} bits`)
      .join(', ');
  const line10 = rows.find((x) => x[1] === 'line:10');
  const findings = [
    `The most an observer can learn from a mechanism private at ε = ${f(eps)}, whatever it believed beforehand (the capacity, in bits of leakage), on each domain: computed by a linear program over every private mechanism, and compared with the known formulas.`,
    `- Lines leak more the longer they are (${bits('lines', (x) => `${x[2]} values`)}).`,
    `- When all values are equally far apart, the leakage stays below ${f(eps / Math.LN2)} bits however many values there are (${bits('discrete', (x) => `${x[2]} values`)}).`,
    `- Grids: ${bits('grids', (x) => gridWords(x[1]))}; the Manhattan grid has longer distances than the Euclidean one, hence more leakage. Records of yes/no answers, any change counted (Hamming cubes): ${bits('hamming', (x) => `${x[1].slice('hamming:'.length)} answers`)}.`,
    `- The linear program agrees with every known formula (largest difference ${f(Math.max(0, ...diff, ...diffA), 2)}).`,
  ];
  const details = [
    `Capacities at eps = ${f(eps)} (alpha = ${f(Math.exp(-eps))}) by LP over all eps*d-private n x n channels. The multiplicative capacity bounds the min-entropy leakage of every eps*d-private mechanism under every prior: log2 of it (bits) is the worst case; the additive capacity bounds the additive Bayes leakage.`,
    `- Lines: ${family('lines')
      .map((x) => `N = ${x[2]}: ${f(x[3])}`)
      .join(
        ', ',
      )} (closed form (N(1-alpha) + 2 alpha)/(1+alpha): ${f(Math.max(...family('lines').map((x) => Math.abs(n(x[3]) - n(x[6])))), 2)} largest difference). Growing linearly in N: a line leaks at most log2 of that, ${f(Math.log2(line10?.[3] ?? NaN))} bits for N = 10.`,
    `- Discrete (clique): ${family('discrete')
      .map((x) => `n = ${x[2]}: ${f(x[3])}`)
      .join(
        ', ',
      )}, bounded by e^eps = ${f(Math.exp(eps))} however large n is: plain eps-LDP never leaks more than eps log2 e = ${f(eps / Math.LN2)} bits.`,
    `- Grids: ${family('grids')
      .map((x) => `${x[1]}: ${f(x[3])} / ${f(x[4])}`)
      .join(
        ', ',
      )} (multiplicative / additive). The Manhattan grid has larger distances than the Euclidean one, hence more capacity.`,
    `- Hamming cubes: ${family('hamming')
      .map((x) => `B = ${x[2] === 2 ? 1 : Math.log2(x[2])}: ${f(x[3])}`)
      .join(
        ', ',
      )}; the symmetric closed form n / (1 + alpha)^B = (2/(1+alpha))^B makes it a product of B one-bit capacities.`,
    `- The LP agrees with every closed form to ${f(Math.max(0, ...diff), 2)} (multiplicative) and ${f(Math.max(0, ...diffA), 2)} (additive).`,
  ];
  return { findings, details };
}
