/**
 * The study report as the app asks for it (export kind `study-report`): the project as the page holds it, its files
 * placed by the host's path policy (web mode: only what lies in the workspace is read), its kept channels found in
 * the host's channel store and checked again on the host's pool (src-main/project/study-report.ts).
 */
import { dirname } from 'node:path';
import type { ApiParams, CheckRequest, CheckResult } from '../../src-shared/protocol/index';
import type { PathPolicy } from '../fs/workspace';
import type { ChannelStore } from '../dispatcher/channel-store';
import { makeStudyReport } from '../project/study-report';

type ReportRequest = Extract<ApiParams<'project.export'>[0], { kind: 'study-report' }>;

/** The report page of `req` (its project's files relative to `projectPath`, else the workspace root). */
export async function studyReportPage(
  req: ReportRequest,
  projectPath: string | null,
  paths: PathPolicy,
  opts: {
    version: string;
    runCheck?: ((request: CheckRequest) => Promise<CheckResult>) | undefined;
    channels?: ChannelStore | undefined;
  },
): Promise<string> {
  const channels = opts.channels;
  const runCheck = opts.runCheck;
  const made = await makeStudyReport(req.project, {
    baseDir: projectPath ? dirname(projectPath) : (paths.root ?? process.cwd()),
    ...(projectPath ? { projectPath } : {}),
    tool: `Mechanism Studio ${opts.version}`,
    placeFile: (file, what) => paths.place(file, what),
    ...(runCheck ? { runCheck } : {}),
    ...(channels ? { hasChannel: async (id: string) => (await channels.locate(id)).ok } : {}),
    ...(req.states ? { states: req.states } : {}),
  });
  return made.html;
}
