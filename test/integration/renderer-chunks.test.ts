/**
 * The page's bundle is split so that no chunk is over Vite's 500 kB warning limit: the first `npm start` (and web
 * mode's first build) prints no chunk-size warning. Builds the renderer into a temporary folder.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { buildRenderer } from '../../src-main/web/build-renderer';

const out = mkdtempSync(join(tmpdir(), 'mechstudio-chunks-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe('renderer build: chunk sizes', () => {
  it('every JavaScript chunk is under 500 kB and the build warns of none', async () => {
    const said: string[] = [];
    const keep = (...a: unknown[]): void => void said.push(a.map(String).join(' '));
    const warn = vi.spyOn(console, 'warn').mockImplementation(keep);
    const log = vi.spyOn(console, 'log').mockImplementation(keep);
    try {
      await buildRenderer(resolve(__dirname, '../..'), out);
    } finally {
      warn.mockRestore();
      log.mockRestore();
    }
    const js = readdirSync(join(out, 'assets')).filter((f) => f.endsWith('.js'));
    const sizes = Object.fromEntries(
      js.map((f) => [f.replace(/-[\w-]+\.js$/, ''), statSync(join(out, 'assets', f)).size]),
    );
    expect(Object.keys(sizes).sort()).toEqual(['charts', 'index', 'svelte', 'zod']);
    for (const [name, bytes] of Object.entries(sizes)) expect(bytes, name).toBeLessThan(500_000);
    expect(said.join('\n')).not.toMatch(/larger than 500 kB/);
  }, 120_000);
});
