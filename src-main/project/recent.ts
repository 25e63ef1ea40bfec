/** Recently opened projects, kept in a small JSON file (the app passes its userData dir). */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { RecentProject } from '../../src-shared/protocol/index';
import { readRegularFileSync } from '../fs/safe-fs';
import { writeFileAtomic } from './project-file';

const MAX_RECENT = 12;

export function defaultConfigDir(): string {
  return (
    process.env.MECHSTUDIO_CONFIG_DIR ?? join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'mechstudio')
  );
}

export function readRecent(configDir = defaultConfigDir()): RecentProject[] {
  try {
    const raw = JSON.parse(
      readRegularFileSync(join(configDir, 'recent.json'), 'recent projects list', 1024 * 1024),
    ) as unknown;
    if (!Array.isArray(raw)) return [];
    return raw
      .filter(
        (r): r is RecentProject =>
          !!r && typeof r.path === 'string' && typeof r.name === 'string' && typeof r.openedAt === 'string',
      )
      .slice(0, MAX_RECENT);
  } catch {
    return [];
  }
}

export function addRecent(path: string, name: string, configDir = defaultConfigDir()): RecentProject[] {
  const list = [
    { path, name, openedAt: new Date().toISOString() },
    ...readRecent(configDir).filter((r) => r.path !== path),
  ].slice(0, MAX_RECENT);
  try {
    writeFileAtomic(join(configDir, 'recent.json'), JSON.stringify(list, null, 2));
  } catch {
    /* a read-only config dir must not break opening a project */
  }
  return list;
}
