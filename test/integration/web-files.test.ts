/**
 * Web server: paths a client gives (project open/save/export, file
 * domains of jobs) are regular files only, refused before anything opens
 * them, quickly, and errors never carry a file's content back. Malformed
 * URLs get 400.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SMALL_JOB, startTestServer, type Client, type TestServer } from './web-fixture';
import { projectFileV1 } from '../unit/support/project-fixture';

let t: TestServer | undefined;
let c: Client;
const MARKER = `SECRETMARK${Math.random().toString(36).slice(2, 10)}`;
let fifo: string;

beforeAll(async () => {
  t = await startTestServer({ threads: 1 });
  c = await t.connect();
  fifo = join(t.dir, 'pipe');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
});

afterAll(async () => {
  await t?.close();
});

function rawGet(path: string): Promise<{ status: number; body: string }> {
  return new Promise((res, rej) => {
    const req = request(
      { host: '127.0.0.1', port: t!.server.port, path, headers: { host: `127.0.0.1:${t!.server.port}` } },
      (r) => {
        let body = '';
        r.on('data', (b: Buffer) => (body += b.toString()));
        r.on('end', () => res({ status: r.statusCode ?? 0, body }));
      },
    );
    req.on('error', rej);
    req.end();
  });
}

const project = projectFileV1('p', { domains: [{ id: 'd', domain: 'line:6' }] });

describe('web server: paths from the client', () => {
  it('refuses to save a project under /proc, with a clear message, while the server keeps answering', async () => {
    // it used to freeze the whole server: another session's call is answered while the save is refused
    const other = await t!.connect();
    const [r, info] = await Promise.all([
      c.call('project.save', [project, '/proc/nope/p.json']),
      other.call('info', []),
    ]);
    expect(info.ok).toBe(true);
    expect(r.ok).toBe(false);
    expect(r.error!.code).toBe('invalid-input');
    expect(r.error!.message).toMatch(/\/proc/);
  });

  it('never replaces a FIFO, device or folder when saving or exporting', async () => {
    for (const [method, params] of [
      ['project.save', [project, fifo]],
      ['project.save', [project, '/dev/null']],
      ['project.save', [project, t!.dir]],
      // a result record (the schema's part), so the FIFO is what refuses it
      ['project.export', [{ kind: 'result-json', result: { type: 'regular', a: 1 }, path: fifo }]],
      ['project.export', [{ kind: 'channel-csv', request: SMALL_JOB, path: '/dev/null' }]],
    ] as const) {
      const r = await c.call(method, [...params]);
      expect(r.ok, `${method} ${JSON.stringify(params[1] ?? params[0])}`).toBe(false);
      expect(r.error!.code).toBe('invalid-input');
    }
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('refuses to open a FIFO, a device, /proc files or a folder, without blocking', async () => {
    // without blocking: opening the FIFO or reading /dev/zero would never answer (the call's own timeout is the hang
    // guard)
    for (const p of [fifo, '/dev/zero', '/dev/urandom', '/proc/self/mem', '/proc/self/status', t!.dir]) {
      const r = await c.call('project.open', [p]);
      expect(r.ok, p).toBe(false);
      expect(r.error!.code, p).toBe('invalid-input');
      expect(r.error!.message, p).toMatch(/not a regular file|folder/);
    }
    // the server still answers
    expect((await c.call('info', [])).ok).toBe(true);
  });

  it('saves atomically to a regular file and opens it again, leaving no temp files', async () => {
    const p = join(t!.dir, 'saved', 'p.mechstudio.json');
    const r = await c.call('project.save', [project, p]);
    expect(r.ok).toBe(true);
    expect(JSON.parse(readFileSync(p, 'utf8')).name).toBe('p');
    expect(readdirSync(join(t!.dir, 'saved'))).toEqual(['p.mechstudio.json']);
    const o = await c.call('project.open', [p]);
    expect(o.ok).toBe(true);
    expect((o.value as { project: { name: string } }).project.name).toBe('p');
  });

  it('refuses jobs whose domain reads /dev/zero, /dev/urandom, /proc/self/mem or a FIFO before any worker opens it', async () => {
    const before = process.memoryUsage().rss;
    for (const domain of [
      'graph:/dev/zero',
      'csv:/dev/urandom',
      'csv:/proc/self/mem',
      `csv:${fifo}`,
      `graph:${t!.dir}`,
      'csv:/no/such/file.csv',
    ]) {
      const r = await c.call('submit', [{ ...SMALL_JOB, domain }]);
      expect(r.ok, domain).toBe(false);
      expect(r.error!.code, domain).toBe('invalid-input');
      expect(r.error!.message, domain).toContain(domain);
    }
    // refused by submit itself (no job id): no worker ever had the request
    // /dev/zero used to grow the server by ~300 MB/s
    expect(process.memoryUsage().rss - before).toBeLessThan(200 * 2 ** 20);
  });

  it('never quotes a file the client pointed at: project JSON, CSV prior, CSV metric, edge list', async () => {
    const bad = join(t!.dir, 'bad.json');
    writeFileSync(bad, `{"version": 1, "name": ${MARKER}}`);
    const prior = join(t!.dir, 'prior.csv');
    writeFileSync(prior, `0.5\n${MARKER}:x:0:0\n`);
    const withPrior = join(t!.dir, 'with-prior.json');
    writeFileSync(
      withPrior,
      JSON.stringify({ ...project, priors: [{ id: 'p', domain: 'd', prior: 'csv:prior.csv' }] }),
    );
    const metric = join(t!.dir, 'metric.csv');
    writeFileSync(metric, `,a,b\n${MARKER},0,1\nb,1,0\n`);
    const metric2 = join(t!.dir, 'metric2.csv');
    writeFileSync(metric2, `,a,b\na,0,${MARKER}'s\nb,1,0\n`);
    const graph = join(t!.dir, 'graph.txt');
    writeFileSync(graph, `${MARKER},${MARKER}\n`);

    const replies = [await c.call('project.open', [bad]), await c.call('project.open', [withPrior])];
    for (const r of replies) {
      expect(r.ok).toBe(false);
      expect(r.error!.code).toBe('invalid-input');
    }
    expect(replies[0]!.error!.message).toMatch(/bad\.json: not valid JSON at line 1, column \d+/);
    expect(replies[1]!.error!.message).toContain('prior.csv');
    expect(replies[1]!.error!.message).toMatch(/line 2/);
    const jobErrors: unknown[] = [];
    for (const domain of [`csv:${metric}`, `csv:${metric2}`, `graph:${graph}`]) {
      const r = await c.call('submit', [{ ...SMALL_JOB, domain }]);
      if (!r.ok) jobErrors.push(r.error);
      else {
        const e = await c.jobEnd(r.value as string);
        expect(e.kind, domain).toBe('error');
        jobErrors.push(e);
      }
    }
    expect(jobErrors).toHaveLength(3);
    if (process.env.SHOW_ERRORS)
      console.log(
        replies.map((r) => r.error!.message),
        jobErrors,
      );
    for (const frame of c.raw) expect(frame).not.toContain(MARKER);
  });

  it('answers a malformed URL with 400 and hides internals', async () => {
    for (const p of ['/%E0%A4%A', '/%', '/%C0%80', '/a%00b']) {
      const r = await rawGet(p);
      expect(r.status, p).toBe(400);
      expect(r.body).not.toMatch(/URIError|at |\/work\//);
    }
    expect((await rawGet('/')).status).toBe(200);
  });

  it('a cancelled job ends and frees its worker: the next job runs', async () => {
    // a job that runs for a while: the tight LP on a 14 x 14 grid
    const r = await c.call('submit', [{ type: 'mechanism', domain: 'grid:14x14', epsilon: 0.5, kind: 'optimal' }]);
    expect(r.ok).toBe(true);
    const id = r.value as string;
    await expect
      .poll(() => c.events.some((e) => e.jobId === id && e.kind === 'progress'), { timeout: 60_000 })
      .toBe(true); // it runs
    expect((await c.call('cancel', [id])).value).toBe(true);
    const end = await c.jobEnd(id);
    expect(end.kind).toBe('error');
    if (end.kind === 'error') expect(end.error.code).toBe('cancelled');
    expect(t!.dispatcher.activeJobs).toBe(0);
    const s = await c.call('submit', [SMALL_JOB]);
    expect((await c.jobEnd(s.value as string)).kind).toBe('result');
    expect(existsSync(fifo)).toBe(true);
  });
});
