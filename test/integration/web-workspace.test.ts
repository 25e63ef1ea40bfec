/**
 * Web mode's workspace (--root): a page holding the token reads and writes
 * files under the root only. Every path it sends (open, save, every export,
 * apply out, graph:/csv: domain files, a project's references) is refused
 * with one 'outside-workspace' line when it leads out of the root (absolute,
 * `..`, a symbolic link, a dangling link) or through a hidden name, and
 * nothing outside is created or replaced. A project referring to files
 * outside its own folder lists them and reads them only when the user agrees.
 * A graph: file is read only under an edge list's name (.csv, .txt, ...); a
 * key file so named is refused as not an edge list, and none of its lines
 * comes back. A domain file swapped for a link leading out after the host
 * checked it reads nothing: the pool's workers check what they opened. The
 * queue is the operator's: the page cannot move it.
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readProjectSafely } from '../../src-main/host/project-store';
import { appRunner } from '../../src-main/web/main';
import { workspaceRoot } from '../../src-main/fs/workspace';
import { parseQueueUrl, probeRedis } from '../../src-main/queue/connection';
import { MechError } from '../../src-shared/errors';
import { SMALL_JOB, startTestServer, type Client, type Reply, type TestServer, fileTree } from './web-fixture';
import { projectFileV1 } from '../unit/support/project-fixture';

const MARKER = `SECRETMARK${Math.random().toString(36).slice(2, 10)}`;
const KEY = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  `b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW${MARKER}`,
  'QyNTUxOQAAACDbm4eTn3eHq2X7lbyeL3xfBBBW0jJtYt1Ht9z3KPiWgwAAAJgB8zKmAfMy',
  '-----END OPENSSH PRIVATE KEY-----',
  '',
].join('\n');
const AUTHORIZED = `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5 owner@${MARKER}\n`;

let base: string;
let ws: string;
let outside: string;
let t: TestServer | undefined;
let c: Client;

/** SMALL_JOB's mechanism as an apply request names it. */
const MECH = { domain: 'line:6', epsilon: 1, kind: 'tg' };
const project = projectFileV1('p', { domains: [{ id: 'd', domain: 'line:6' }] });

beforeAll(async () => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'mechstudio-ws-')));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  for (const d of [ws, outside, join(ws, 'proj'), join(ws, 'data'), join(ws, '.ssh'), join(ws, '.hidden')])
    mkdirSync(d, { recursive: true });
  // an edge list outside the root: read, its labels would come back in a result
  writeFileSync(join(outside, 'secret.csv'), `${MARKER},a\na,b\n`);
  writeFileSync(join(outside, 'authorized_keys'), AUTHORIZED);
  writeFileSync(join(outside, 'project.json'), JSON.stringify({ ...project, name: MARKER }));
  writeFileSync(join(ws, '.ssh', 'id_ed25519'), KEY);
  writeFileSync(join(ws, '.ssh', 'authorized_keys'), AUTHORIZED);
  writeFileSync(join(ws, '.hidden', 'edges.csv'), `${MARKER},a\na,b\n`);
  writeFileSync(join(ws, 'keycopy'), KEY);
  writeFileSync(join(ws, 'keycopy.txt'), KEY);
  writeFileSync(join(ws, 'data', 'edges.csv'), 'source,target\nparis,lyon\nlyon,nice\n');
  writeFileSync(join(ws, 'data', 'prior.csv'), '0.5\n0.25\n0.25\n');
  writeFileSync(join(ws, 'proj', 'prior.csv'), '0.5\n0.5\n');
  const refs = (prior: string, domain: string) =>
    JSON.stringify({ ...project, domains: [{ id: 'd', domain }], priors: [{ id: 'u', domain: 'd', prior }] });
  writeFileSync(join(ws, 'proj', 'p.json'), refs('csv:../data/prior.csv', 'graph:../data/edges.csv'));
  writeFileSync(join(ws, 'proj', 'inside.json'), refs('csv:prior.csv', 'line:2'));
  writeFileSync(join(ws, 'refs-outside.json'), refs('csv:../outside/secret.csv', 'line:2'));
  symlinkSync(outside, join(ws, 'out-link'));
  symlinkSync(join(outside, 'secret.csv'), join(ws, 'key-link'));
  symlinkSync(join(ws, '.ssh'), join(ws, 'visible'));
  symlinkSync(join(outside, 'newdir'), join(ws, 'dangling'));
  t = await startTestServer({ threads: 1, root: ws, operatorQueue: true });
  c = await t.connect();
}, 60_000);

afterAll(async () => {
  await t?.close();
  if (base) rmSync(base, { recursive: true, force: true });
});

/** Paths that lead out of the root or through a hidden name, each in another way. */
const readEscapes = (): string[] => [
  join(outside, 'secret.csv'),
  '../outside/secret.csv',
  'proj/../../outside/secret.csv',
  'key-link',
  'out-link/secret.csv',
  '.ssh/id_ed25519',
  join(ws, '.ssh', 'id_ed25519'),
  'visible/id_ed25519',
  '.hidden/edges.csv',
  'data/../.hidden/edges.csv',
  'dangling/x.csv',
  '/etc/passwd',
];
const writeEscapes = (): string[] => [
  join(outside, 'authorized_keys'),
  '../outside/authorized_keys',
  'proj/../../outside/new.json',
  'out-link/authorized_keys',
  'out-link/new.json',
  '.ssh/authorized_keys',
  'visible/authorized_keys',
  '.config/mechstudio/x.json',
  'dangling/new.json',
];

function expectRefused(r: Reply, what: string): void {
  expect(r.ok, what).toBe(false);
  expect(r.error!.code, `${what}: ${r.error!.message}`).toBe('outside-workspace');
  expect(r.error!.message.split('\n'), what).toHaveLength(1);
  expect(r.error!.message, what).not.toContain(MARKER);
}

describe('web mode: the workspace root', () => {
  it('refuses every read outside the root, through a link or a hidden name, with one line and no content', async () => {
    let n = 0;
    for (const e of readEscapes()) {
      expectRefused(await c.call('project.open', [e]), `open ${e}`);
      for (const kind of ['graph', 'csv']) {
        expectRefused(await c.call('submit', [{ ...SMALL_JOB, domain: `${kind}:${e}` }]), `submit ${kind}:${e}`);
        expectRefused(
          await c.call('project.export', [
            { kind: 'channel-csv', request: { ...SMALL_JOB, domain: `${kind}:${e}` }, path: 'never.csv' },
          ]),
          `channel-csv ${kind}:${e}`,
        );
        expectRefused(
          await c.call('project.export', [
            {
              kind: 'apply',
              request: { mechanism: { ...MECH, domain: `${kind}:${e}` } },
              secrets: 'value\n0\n',
              path: 'never.csv',
            },
          ]),
          `apply ${kind}:${e}`,
        );
        n += 3;
      }
      // a project sent by the page whose domain names the file: refused before the run
      const p = { ...project, domains: [{ id: 'd', domain: `graph:${e}` }] };
      expectRefused(
        await c.call('project.export', [{ kind: 'project-run', project: p, dir: 'never-run' }]),
        `project-run graph:${e}`,
      );
      n += 2;
    }
    expect(n).toBe(readEscapes().length * 8);
    expect(existsSync(join(ws, 'never.csv'))).toBe(false);
    expect(existsSync(join(ws, 'never-run'))).toBe(false);
    expect(c.raw.join('\n')).not.toContain(MARKER);
  });

  it('refuses to create or replace a file outside the root or under a hidden name; nothing there changes', async () => {
    const before = { outside: fileTree(outside), ssh: fileTree(join(ws, '.ssh')) };
    for (const w of writeEscapes()) {
      expectRefused(await c.call('project.save', [project, w]), `save ${w}`);
      expectRefused(
        await c.call('project.export', [{ kind: 'result-json', result: { type: 'regular', a: 1 }, path: w }]),
        `result-json ${w}`,
      );
      expectRefused(
        await c.call('project.export', [{ kind: 'channel-csv', request: SMALL_JOB, path: w }]),
        `channel-csv ${w}`,
      );
      expectRefused(
        await c.call('project.export', [
          { kind: 'apply', request: { mechanism: MECH }, secrets: 'value\n0\n', path: w },
        ]),
        `apply out ${w}`,
      );
      expectRefused(await c.call('project.export', [{ kind: 'project-run', project, dir: w }]), `project-run dir ${w}`);
      expectRefused(
        await c.call('project.export', [{ kind: 'project-run', project, projectPath: w, dir: 'run' }]),
        `project-run projectPath ${w}`,
      );
    }
    expect(fileTree(outside)).toEqual(before.outside);
    expect(fileTree(join(ws, '.ssh'))).toEqual(before.ssh);
    expect(readFileSync(join(ws, '.ssh', 'authorized_keys'), 'utf8')).toBe(AUTHORIZED);
    expect(existsSync(join(ws, '.config'))).toBe(false);
    expect(existsSync(join(outside, 'newdir'))).toBe(false);
  });

  it('a domain file swapped for a link leading out after the host placed it: the pool of web mode reads nothing outside', async () => {
    const f = join(ws, 'data', 'swapped.csv');
    writeFileSync(f, 'x,y\ny,z\n');
    // the host's check passes (a regular file inside the root)...
    expect(await (await workspaceRoot(ws)).place('data/swapped.csv', 'domain file')).toBe(f);
    // ...then the file becomes a link to one outside, before a worker opens it
    rmSync(f);
    symlinkSync(join(outside, 'secret.csv'), f);
    const { runner } = await appRunner({ threads: 1, configDir: join(base, 'runner-config'), readRoot: ws });
    try {
      const ended = new Promise<unknown>((res) =>
        runner.onJobEvent((e) => void ((e.kind === 'result' || e.kind === 'error') && res(e))),
      );
      await runner.submit({ ...SMALL_JOB, domain: `graph:${f}` });
      const end = (await ended) as { kind: string; error?: { code: string; message: string } };
      expect(end.kind).toBe('error');
      expect(end.error?.code).toBe('outside-workspace');
      expect(end.error?.message).toBe(
        `edge-list file '${f}' became a symbolic link after it was checked (links are not followed when a workspace file is opened); nothing was read`,
      );
      expect(JSON.stringify(end)).not.toContain(MARKER);
    } finally {
      await runner.close();
      rmSync(f);
    }
  });

  it("paths inside the root work, and a relative path is the root's", async () => {
    const saved = await c.call('project.save', [project, 'proj/saved.json']);
    expect(saved.ok, JSON.stringify(saved.error)).toBe(true);
    expect((saved.value as { path: string }).path).toBe(join(ws, 'proj', 'saved.json'));
    expect(JSON.parse(readFileSync(join(ws, 'proj', 'saved.json'), 'utf8'))).toMatchObject({ name: 'p' });
    const json = await c.call('project.export', [
      { kind: 'result-json', result: { type: 'regular', a: 1 }, path: 'out/r.json' },
    ]);
    expect(json.ok, JSON.stringify(json.error)).toBe(true);
    expect(JSON.parse(readFileSync(join(ws, 'out', 'r.json'), 'utf8'))).toEqual({ type: 'regular', a: 1 });
    const id = await c.call('submit', [{ ...SMALL_JOB, kind: 'exponential', domain: 'graph:data/edges.csv' }]);
    expect(id.ok, JSON.stringify(id.error)).toBe(true);
    const end = await c.jobEnd(id.value as string);
    expect(end.kind, JSON.stringify(end)).toBe('result');
    if (end.kind === 'result' && end.result.type === 'mechanism') {
      expect(end.result.rows).toBe(3);
      expect(end.result.domain).toBe(`graph:${join(ws, 'data', 'edges.csv')}`);
    }
  });

  it('a project referring to files outside its folder lists them and reads them only when the user agrees', async () => {
    const first = await c.call('project.open', ['proj/p.json']);
    expect(first.ok, JSON.stringify(first.error)).toBe(true);
    expect(first.value).toEqual({
      path: join(ws, 'proj', 'p.json'),
      outside: [join(ws, 'data', 'edges.csv'), join(ws, 'data', 'prior.csv')],
    });
    const agreed = await c.call('project.open', ['proj/p.json', true]);
    expect(agreed.ok, JSON.stringify(agreed.error)).toBe(true);
    const opened = agreed.value as {
      path: string;
      project: { priors: { prior: unknown }[]; domains: { domain: unknown }[] };
    };
    expect(opened.project.priors[0]!.prior).toEqual({ kind: 'vector', values: [0.5, 0.25, 0.25] });
    expect(opened.project.domains[0]!.domain).toBe(`graph:${join(ws, 'data', 'edges.csv')}`);
    // files in its own folder: opened at once
    const inside = await c.call('project.open', ['proj/inside.json']);
    expect(inside.ok).toBe(true);
    expect((inside.value as { project: { priors: { prior: unknown }[] } }).project.priors[0]!.prior).toEqual({
      kind: 'vector',
      values: [0.5, 0.5],
    });
    // a reference out of the root is refused even when the user agrees: csv: and points: priors, losses, case-study
    // parameters
    for (const allow of [false, true])
      expectRefused(await c.call('project.open', ['refs-outside.json', allow]), `refs-outside allow=${allow}`);
    const other = [
      { ...project, priors: [{ id: 'u', domain: 'd', prior: 'points:../out-link/secret.csv:cell=2' }] },
      { ...project, priors: [{ id: 'u', domain: 'd', prior: 'csv:../.ssh/id_ed25519' }] },
      { ...project, mechanisms: [{ id: 'm', domain: 'd', kind: 'tg', epsilon: 1, loss: 'csv:../key-link' }] },
      { ...project, caseStudies: [{ id: 'c', study: 'voting', params: { weights: 'csv:../../outside/secret.csv' } }] },
    ];
    for (const [i, p] of other.entries()) {
      writeFileSync(join(ws, 'proj', `other-${i}.json`), JSON.stringify(p));
      for (const allow of [false, true])
        expectRefused(await c.call('project.open', [`proj/other-${i}.json`, allow]), `other-${i} allow=${allow}`);
      // the same project sent by the page for a run, its references relative to its path
      expectRefused(
        await c.call('project.export', [
          { kind: 'project-run', project: p, projectPath: `proj/other-${i}.json`, dir: 'run' },
        ]),
        `run other-${i}`,
      );
    }
    expect(existsSync(join(ws, 'run'))).toBe(false);
    // without a root (the Electron app) the same project lists its files too, links followed, and reads them on consent
    expect(await readProjectSafely(join(ws, 'refs-outside.json'))).toEqual({ outside: [join(outside, 'secret.csv')] });
    expect(await readProjectSafely(join(ws, 'proj', 'p.json'))).toEqual({
      outside: [join(ws, 'data', 'edges.csv'), join(ws, 'data', 'prior.csv')],
    });
    const viaLink = join(ws, 'proj', 'via-link.json');
    writeFileSync(
      viaLink,
      JSON.stringify({ ...project, priors: [{ id: 'u', domain: 'd', prior: 'csv:../key-link' }] }),
    );
    expect(await readProjectSafely(viaLink)).toEqual({ outside: [join(outside, 'secret.csv')] });
  });

  it('graph: of a file not named as an edge list is refused before any worker reads it', async () => {
    for (const [file, shown] of [
      ['keycopy', 'keycopy'],
      [join(ws, 'keycopy'), join(ws, 'keycopy')],
    ]) {
      const id = await c.call('submit', [{ ...SMALL_JOB, domain: `graph:${file}` }]);
      expect(id.ok).toBe(false);
      expect(id.error?.code).toBe('outside-workspace');
      expect(id.error?.message).toBe(
        `domain 'graph:${file}' file '${shown}' is not read as a graph: in the workspace a graph: file is an edge list named *.csv, *.tsv, *.txt, *.edges, *.edgelist, *.el`,
      );
    }
  });

  it('graph: of a key file inside the root is refused as not an edge list, and none of its lines comes back', async () => {
    const frames = c.raw.length;
    for (const domain of ['graph:keycopy.txt', `graph:${join(ws, 'keycopy.txt')}`]) {
      const id = await c.call('submit', [{ ...SMALL_JOB, domain }]);
      expect(id.ok, JSON.stringify(id.error)).toBe(true);
      const end = await c.jobEnd(id.value as string);
      expect(end.kind).toBe('error');
      if (end.kind === 'error') {
        expect(end.error.code).toBe('invalid-input');
        expect(end.error.message).toMatch(
          /does not read as an edge list: 0 lines name an edge \(two names\) and 4 a single node/,
        );
      }
    }
    const after = c.raw.slice(frames).join('\n');
    for (const line of KEY.split('\n').filter((l) => l !== '')) expect(after).not.toContain(line);
    expect(after).not.toContain(MARKER);
  });

  it("the queue is the operator's: the page sees it and cannot move it", async () => {
    const st = await c.call('queue.status', []);
    expect(st.value).toMatchObject({ runner: 'local', changeable: false, persisted: false });
    for (const [m, p] of [
      ['queue.connect', ['redis://127.0.0.1:1/0']],
      ['queue.useLocal', []],
    ] as const) {
      const r = await c.call(m, [...p]);
      expect(r.ok).toBe(false);
      expect(r.error!.code).toBe('not-applicable');
      expect(r.error!.message).toMatch(/set by the server's operator/);
    }
    expect(existsSync(join(t!.dir, 'config', 'settings.json'))).toBe(false);
  });
});

describe('queue connection errors', () => {
  let silent: Server | undefined;
  afterAll(() => silent?.close());

  it('have their own code and read the same for a closed port and an open one that is not Redis', async () => {
    // an open port that answers garbage and hangs up, and one that is closed (the listener stopped)
    silent = createServer((s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    await new Promise<void>((r) => silent!.listen(0, '127.0.0.1', () => r()));
    const open = (silent.address() as { port: number }).port;
    const closedSrv = createServer();
    await new Promise<void>((r) => closedSrv.listen(0, '127.0.0.1', () => r()));
    const closed = (closedSrv.address() as { port: number }).port;
    await new Promise<void>((r) => closedSrv.close(() => r()));
    const messages: string[] = [];
    for (const port of [open, closed]) {
      const err = await probeRedis(parseQueueUrl(`redis://user:pw-${MARKER}@127.0.0.1:${port}/0`), 1500).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(MechError);
      expect((err as MechError).code).toBe('queue-unreachable');
      messages.push((err as MechError).message.replace(String(port), 'PORT'));
    }
    expect(messages[0]).toBe(messages[1]);
    expect(messages[0]).toBe(
      "cannot use the job queue at redis://***@127.0.0.1:PORT/0: no Redis 5.0 or newer accepted the connection within 2 s (check that redis-server runs there and the URL's user and password)",
    );
    expect(messages.join('\n')).not.toMatch(new RegExp(`${MARKER}|ECONNREFUSED|HTTP|closed|reset`, 'i'));
  });
});
