/**
 * The study report as web mode makes it (host/report-export.ts): the files a page's project names are read through
 * the workspace's path policy, so a prior read from a file outside the workspace (or hidden) is named as refused,
 * never hashed, and one inside is hashed.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { studyReportPage } from '../../../../src-main/host/report-export';
import { workspaceRoot } from '../../../../src-main/fs/workspace';
import { projectSchema } from '../../../../src-shared/protocol/index';

describe('the study report through the workspace policy', () => {
  it('hashes a file inside the workspace and names one outside or hidden as refused', async () => {
    const base = mkdtempSync(join(tmpdir(), 'ms-report-ws-'));
    const root = join(base, 'root');
    mkdirSync(join(root, '.secret'), { recursive: true });
    const weights = '0.5\n0.5\n';
    writeFileSync(join(root, 'inside.csv'), weights);
    writeFileSync(join(base, 'outside.csv'), weights);
    writeFileSync(join(root, '.secret', 'hidden.csv'), weights);
    const project = projectSchema.parse({
      version: 1,
      name: 'ws',
      domains: [{ id: 'd', domain: 'line:2' }],
      priors: [
        { id: 'in', domain: 'd', prior: 'csv:inside.csv' },
        { id: 'out', domain: 'd', prior: `csv:${join(base, 'outside.csv')}` },
        { id: 'hid', domain: 'd', prior: 'csv:.secret/hidden.csv' },
      ],
    });
    const html = await studyReportPage({ kind: 'study-report', project }, null, await workspaceRoot(root), {
      version: 'test',
    });
    const sha = createHash('sha256').update(weights).digest('hex');
    expect(html).toContain(
      `<code>inside.csv</code></td><td>prior &#39;in&#39; file</td><td><span class="">${weights.length} bytes, SHA-256 ${sha}`,
    );
    expect(html).toMatch(
      /<code>outside\.csv<\/code><\/td><td>prior &#39;out&#39; file<\/td><td><span class="bad">not readable now: /,
    );
    expect(html).toMatch(
      /<code>hidden\.csv<\/code><\/td><td>prior &#39;hid&#39; file<\/td><td><span class="bad">not readable now: /,
    );
    expect(html.split(sha).length - 1).toBe(1);
  });
});
