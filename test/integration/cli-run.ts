/**
 * Run the mechstudio CLI (bin/mechstudio.js, the bundles npm test builds) as a
 * subprocess and collect its exit code, stdout, stderr and wall time: the one
 * helper of the CLI integration suites.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI_BIN = fileURLToPath(new URL('../../bin/mechstudio.js', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      ...(opts.env ? { env: { ...process.env, ...opts.env } } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - t0 }));
  });
}
