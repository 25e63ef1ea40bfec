// Drives the built Electron main process (out/main/index.js) under Node with
// the mock above: calls the IPC API as the renderer would and prints what
// happened as one JSON line.
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
register('./hooks.mjs', import.meta.url);

const root = resolve(process.argv[2]);
await import(pathToFileURL(join(root, 'out/main/index.js')).href);
const E = globalThis.__electron;
for (let i = 0; i < 200 && !E.windows.length; i++) await new Promise((r) => setTimeout(r, 50));
const win = E.windows[0];
const page = pathToFileURL(join(root, 'out/renderer/index.html')).href;
const call = (method, params, url = page) =>
  E.handlers.get('mechstudio:call')({ senderFrame: { url }, sender: win.webContents }, method, params);

const out = {};
out.webPreferences = win.webContents && win.options.webPreferences;
out.loaded = win.loaded;
out.menu = E.menu.template.map((m) => m.label ?? m.role);
out.fileMenu = E.menu.template.find((m) => m.label === '&File').submenu.map((i) => i.label ?? i.type ?? i.role);
out.examplesMenu = E.menu.template.find((m) => m.label === 'E&xamples').submenu.map((i) => i.label);
out.info = await call('info', []);
out.examples = await call('examples.list', []);
out.foreign = await call('info', [], 'https://evil.example/');
out.badRequest = await call('submit', [{ type: 'mechanism', domain: 'line:6', epsilon: -1, kind: 'tg' }]);
out.outPath = await call('submit', [
  { type: 'mechanism', domain: 'line:6', epsilon: Math.LN2, kind: 'tg', out: '/tmp/x.csv' },
]);
const sub = await call('submit', [
  { type: 'mechanism', domain: 'line:6', epsilon: Math.LN2, kind: 'tg', inlineLimit: 100 },
]);
out.submit = sub;
for (let i = 0; i < 400; i++) {
  if (
    E.sent.some(
      (s) =>
        s.channel === 'mechstudio:job' &&
        s.payload.jobId === sub.value &&
        (s.payload.kind === 'result' || s.payload.kind === 'error'),
    )
  )
    break;
  await new Promise((r) => setTimeout(r, 50));
}
out.events = E.sent.filter((s) => s.channel === 'mechstudio:job').map((s) => s.payload);
// The study report of a project holding that result and a comparison (its chart drawn on the native canvas in the
// bundle).
const waitResult = async (jobId) => {
  for (let i = 0; i < 600; i++) {
    const e = E.sent.find(
      (s) =>
        s.channel === 'mechstudio:job' &&
        s.payload.jobId === jobId &&
        (s.payload.kind === 'result' || s.payload.kind === 'error'),
    );
    if (e) return e.payload.result;
    await new Promise((r) => setTimeout(r, 50));
  }
  return undefined;
};
const cmp = await call('submit', [
  { type: 'compare', domain: 'grid:3x3:step=1', epsilon: 1, mechanisms: [{ kind: 'planar-laplace' }] },
]);
const compared = cmp.ok ? await waitResult(cmp.value) : undefined;
const tg = out.events.find((e) => e.jobId === sub.value && e.kind === 'result')?.result;
const reportPath = join(process.env.MECHSTUDIO_CONFIG_DIR, 'study.html');
const studied = {
  version: 1,
  name: 'electron study',
  domains: [
    { id: 'd', domain: 'line:6' },
    { id: 'g', domain: 'grid:3x3:step=1' },
  ],
  mechanisms: [{ id: 'tg', domain: 'd', kind: 'tg', epsilon: Math.LN2 }],
  results: { tg: { hash: '0123456789abcdef', result: tg } },
  comparisons: [{ id: 'c', domain: 'g', epsilon: 1, kinds: ['planar-laplace'], mechanisms: [], result: compared }],
};
out.report = await call('project.export', [
  { kind: 'study-report', project: studied, states: { tg: 'current' }, path: reportPath },
]);
try {
  const html = (await import('node:fs')).readFileSync(reportPath, 'utf8');
  out.reportPage = {
    checked: html.includes('private at ε = 0.6931: checked for this report'),
    chart: html.includes('src="data:image/png;base64,'),
    maps: (html.match(/<svg /g) ?? []).length,
  };
} catch (e) {
  out.reportPage = { error: String(e) };
}
out.navigationBlocked = (() => {
  let prevented = false;
  win.webContents.events.get('will-navigate')({ preventDefault: () => (prevented = true) }, 'https://evil.example/');
  return prevented;
})();
out.windowOpen = win.webContents.windowOpenHandler({ url: 'https://evil.example/' });
out.permission = await new Promise((r) => E.permissionHandler(null, 'geolocation', r));
out.remoteRequest = await new Promise((r) => E.beforeRequest({ url: 'https://evil.example/x.js' }, r));
out.fileRequest = await new Promise((r) => E.beforeRequest({ url: page }, r));
console.log(JSON.stringify(out));
process.exit(0);
