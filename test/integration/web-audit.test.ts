/**
 * The audit from the app (web mode's host): samples sent as text give the
 * verdict; a file path from the page is refused (renderers never choose what
 * the engine reads); the built-in example comes through examples.audit and
 * is refuted.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from './web-fixture';
import type { AuditExample } from '../../src-shared/protocol/api';
import type { AuditResult } from '../../src-shared/protocol/audit';

const web = useTestServer();

describe('audit from the app', () => {
  it('the built-in example through examples.audit and an audit job on its text: refuted', async () => {
    const ex = await web.c.call('examples.audit', ['vendor-planar-laplace']);
    expect(ex.ok, JSON.stringify(ex.error)).toBe(true);
    const e = ex.value as AuditExample;
    expect(e.domain).toBe('grid:8x8');
    expect(e.epsilon).toBeCloseTo(Math.log(4) / 10, 15);
    const sub = await web.c.call('submit', [{ type: 'audit', domain: e.domain, epsilon: e.epsilon, text: e.samples }]);
    expect(sub.ok, JSON.stringify(sub.error)).toBe(true);
    const end = await web.c.jobEnd(sub.value as string, 60_000);
    if (end.kind !== 'result' || end.result.type !== 'audit')
      throw new Error(`the audit ended with ${JSON.stringify(end).slice(0, 300)}`);
    const r: AuditResult = end.result;
    expect(r.verdict).toBe('refuted');
    expect(r.samples).toBe(19_200);
    expect(r.domainPoints).toBe(64);
    const bad = await web.c.call('examples.audit', ['no-such-example']);
    expect(bad.ok).toBe(false);
    expect(bad.error!.message).toMatch(/unknown audit example 'no-such-example' \(available: vendor-planar-laplace\)/);
  }, 60_000);

  it('submit refuses an audit naming a file to read', async () => {
    const r = await web.c.call('submit', [{ type: 'audit', domain: 'line:4', epsilon: 1, input: '/etc/passwd' }]);
    expect(r.ok).toBe(false);
    expect(r.error!.message).toBe('submit: an audit from the app sends its samples as text, not a file path');
  });
});
