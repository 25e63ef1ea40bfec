/**
 * Case studies whose work is a list of independent items (capacities: one LP
 * per domain; geo: one grid comparison per eps and one city comparison, with
 * its LPs, per city eps), split into parts that run as separate jobs (pool
 * threads or queue workers: src-main/dispatcher/fan-out.ts).
 *
 * Guarantee: merging the parts' items (in order) gives exactly the single
 * job's result, value for value (byte-equal JSON; wall-clock solver times
 * aside), because the single job is computed the same way: all its
 * items by the same item function, then the same assemble step
 * (test/unit/worker/casestudy/parts.test.ts).
 * Preconditions: every part ran with the same params; the parts cover the
 * items 0..itemCount-1 contiguously and in order. Items coming back are
 * validated with the study's item schema before they are assembled.
 */
import { invalid } from '../../src-shared/errors';
import { caseStudyResultSchema, type CaseStudyParams, type CaseStudyResult } from '../../src-shared/protocol/index';
import type { SplitStudy, StudyContext } from './study';
import { capacitiesParts } from './capacities';
import { geoParts } from './geo';

/** The studies that can be split, by name. */
const SPLIT_STUDIES: Readonly<Record<string, SplitStudy<unknown>>> = {
  capacities: capacitiesParts as SplitStudy<unknown>,
  geo: geoParts as SplitStudy<unknown>,
};

/** Whether a study can be split into parts. */
export function splitStudy(name: string): SplitStudy<unknown> | null {
  return Object.hasOwn(SPLIT_STUDIES, name) ? SPLIT_STUDIES[name]! : null;
}

/** A part job: its items, carried in a result without findings, tables or charts. */
export async function runStudyPart(
  study: string,
  params: CaseStudyParams,
  part: { start: number; count: number },
  ctx: StudyContext,
): Promise<CaseStudyResult> {
  const s = splitStudy(study);
  if (!s)
    invalid(`case study '${study}' cannot be split into parts (splittable: ${Object.keys(SPLIT_STUDIES).join(', ')})`);
  const n = s.itemCount(params);
  if (part.start + part.count > n)
    invalid(`case study '${study}' has ${n} items; part ${part.start}..${part.start + part.count - 1} is out of range`);
  const items = await s.computeItems(params, part.start, part.count, ctx);
  return { type: 'case-study', study, title: '', numbers: {}, tables: [], charts: [], part: { ...part, items } };
}

/**
 * The single job's result from its parts' results (in item order); throws MechError 'internal' on a part that does not
 * fit.
 */
export function mergeStudyParts(study: string, params: CaseStudyParams, parts: CaseStudyResult[]): CaseStudyResult {
  const s = splitStudy(study);
  if (!s) invalid(`case study '${study}' cannot be split into parts`);
  const items: unknown[] = [];
  for (const r of parts) {
    if (!r.part || r.part.start !== items.length || r.part.items.length !== r.part.count)
      invalid(`case study '${study}': a part's items do not continue the previous part's`);
    for (const item of r.part.items) {
      const v = s.itemSchema.safeParse(item);
      if (!v.success)
        invalid(`case study '${study}': a part returned a malformed item (${v.error.issues[0]?.message ?? ''})`);
      items.push(v.data);
    }
  }
  if (items.length !== s.itemCount(params))
    invalid(`case study '${study}': the parts hold ${items.length} items, the study has ${s.itemCount(params)}`);
  // through the result schema, as every reply of a worker is: the same record, fields in the schema's order
  return caseStudyResultSchema.parse(s.assemble(params, items));
}
