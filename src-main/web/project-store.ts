/**
 * The app's project storage, on top of src-main/project (validated reads,
 * atomic writes, recent list, examples, `mechstudio run` export). Opening a
 * project resolves its file references (csv:FILE priors and losses become
 * numbers, file domains absolute paths) so the renderer, which cannot read
 * files, gets a self-contained project; saving writes that resolved form.
 */
import { dirname, resolve } from 'node:path';
import type { Dispatcher } from '../dispatcher/dispatcher';
import { listExamples, loadExample } from '../project/examples';
import { loadProject, saveProject } from '../project/project-file';
import { addRecent, readRecent } from '../project/recent';
import { resolveProjectFiles } from '../project/resolve-files';
import { runProject } from '../project/run-project';
import { projectSchema, type ExampleInfo, type ProjectInput, type RecentProject } from '../../src-worker/protocol';
import type { ProjectStore } from './host';

export function createProjectStore(dispatcher: Dispatcher, opts: { examplesDir: string; configDir: string }): ProjectStore & {
  examples(): ExampleInfo[];
  loadExample(name: string): ProjectInput;
  recent(): RecentProject[];
  addRecent(path: string, name: string): RecentProject[];
} {
  return {
    read: async (path) => resolveProjectFiles(loadProject(path), dirname(resolve(path))),
    write: async (path, project) => void saveProject(path, project),
    exportRun: async (project, projectPath, dir) => {
      const p = projectSchema.parse(project);
      const summary = await runProject(dispatcher, p, projectPath ? dirname(resolve(projectPath)) : process.cwd(), dir);
      return summary.files;
    },
    exportChannel: async (request, path) => {
      const r = await dispatcher.run({ ...request, out: path, inlineLimit: 0 });
      return 'csvPath' in r && typeof r.csvPath === 'string' ? [r.csvPath] : [path];
    },
    examples: () => listExamples(opts.examplesDir),
    loadExample: (name) => {
      const { path, project } = loadExample(name, opts.examplesDir);
      return resolveProjectFiles(project, dirname(path));
    },
    recent: () => readRecent(opts.configDir),
    addRecent: (path, name) => addRecent(path, name, opts.configDir),
  };
}
