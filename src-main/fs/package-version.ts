/** The package's version, read from package.json at the package root (null when it cannot be read). */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageVersion(): string | null {
  try {
    // src-main/<folder>/*.ts and out/cli/main.js both sit two folders below the package root
    const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
    return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return null;
  }
}
