/** The built-in case studies by name (project `caseStudies[].study`). */
import { invalid } from '../../src-shared/errors';
import type { CaseStudyName, CaseStudyRequest, CaseStudyResult } from '../../src-shared/protocol/index';
import type { Study, StudyContext } from './study';
import { votingStudy } from './voting';
import { leakageBoundsStudy } from './leakage-bounds';
import { regularPriorStudy } from './regular-prior';
import { sumAndCountsStudy } from './sum-and-2count';
import { geoStudy } from './geo';
import { smartMeterStudy } from './smart-meter';
import { registrationDateStudy } from './registration-date';
import { capacitiesStudy } from './capacities';
import { runStudyPart } from './parts';

/** One study per parameter schema (CASE_STUDY_PARAMS): the same names. */
export const CASE_STUDIES: Readonly<Record<CaseStudyName, Study>> = {
  voting: votingStudy,
  'leakage-bounds': leakageBoundsStudy,
  'regular-prior': regularPriorStudy,
  'sum-and-2count': sumAndCountsStudy,
  geo: geoStudy,
  'smart-meter': smartMeterStudy,
  'registration-date': registrationDateStudy,
  capacities: capacitiesStudy,
};

export async function runCaseStudy(
  req: Pick<CaseStudyRequest, 'study' | 'params' | 'part'>,
  ctx: StudyContext,
): Promise<CaseStudyResult> {
  // one part of a split study (src-worker/casestudy/parts.ts): its items only
  if (req.part) return runStudyPart(req.study, req.params ?? {}, req.part, ctx);
  const study = (CASE_STUDIES as Readonly<Record<string, Study | undefined>>)[req.study];
  if (!study) invalid(`unknown case study '${req.study}' (known: ${Object.keys(CASE_STUDIES).join(', ')})`);
  return study(req.params ?? {}, ctx);
}
