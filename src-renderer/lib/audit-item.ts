/**
 * What the Audit view keeps and reads besides the engine's audit: the
 * samples file's record (name, size, SHA-256; its rows are never kept), the
 * claimed eps and the other numbers read as the editors read them (numbers or
 * expressions such as ln 4), the project's points grids that point samples
 * (x,y or lat,lon) are binned on, as `mechstudio audit --prior points:FILE`
 * bins them, and a failure's message naming the file. Pure but for the
 * SHA-256 (Web Crypto): unit-tested in test/unit/renderer/lib/audit-item.test.ts.
 */
import type { FileRecord, PointsBinning, ProjectInput } from '../../src-shared/protocol/index';
import { EPSILON_RULE, parseNumberField } from './number-field';

/** SHA-256 of bytes as 64 lowercase hex digits. */
export async function sha256Hex(bytes: ArrayBuffer | Uint8Array): Promise<string> {
  const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  const d = new Uint8Array(await crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));
  return Array.from(d, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A picked file's record: its name, size in bytes and SHA-256 of its bytes. */
export async function fileRecord(f: {
  name: string;
  size: number;
  arrayBuffer(): Promise<ArrayBuffer>;
}): Promise<FileRecord> {
  return { name: f.name, size: f.size, sha256: await sha256Hex(await f.arrayBuffer()) };
}

/** A points grid of the project: a prior imported from points, with its grid's domain text and binning. */
interface PointsGrid {
  prior: string;
  domain: string;
  label: string;
  binning: PointsBinning;
}

/** The project's points grids (priors imported from points on a grid domain given as text). */
export function pointsGrids(project: ProjectInput): PointsGrid[] {
  const out: PointsGrid[] = [];
  for (const p of project.priors ?? []) {
    if (!p.points) continue;
    const d = project.domains.find((x) => x.id === p.domain);
    if (!d || typeof d.domain !== 'string') continue;
    const coords = p.points.binning.projection ? 'lat,lon' : 'x,y';
    out.push({
      prior: p.id,
      domain: d.domain,
      label: `${d.name ?? d.id}: ${p.id}, from ${p.points.file} (${coords})`,
      binning: p.points.binning,
    });
  }
  return out;
}

/** The audit's numbers as typed, read as every eps field reads them; or the one message saying what is wrong. */
export function auditNumbers(
  epsText: string,
  confidenceText: string,
  detectText: string,
): { ok: true; epsilon: number; confidence: number; detect?: number[] } | { ok: false; problem: string } {
  const eps = parseNumberField(epsText, { ...EPSILON_RULE, what: 'the claimed ε' });
  if (!eps.ok) return { ok: false, problem: eps.problem };
  const conf = parseNumberField(confidenceText, { what: 'the confidence', min: 0, above: true, max: 1 });
  if (!conf.ok) return { ok: false, problem: conf.problem };
  if (conf.value! >= 1)
    return { ok: false, problem: `the confidence must be less than 1 (you entered ${confidenceText.trim()})` };
  const r: { ok: true; epsilon: number; confidence: number; detect?: number[] } = {
    ok: true,
    epsilon: eps.value!,
    confidence: conf.value!,
  };
  if (detectText.trim() !== '') {
    const detect: number[] = [];
    for (const t of detectText.split(',')) {
      const v = parseNumberField(t, { ...EPSILON_RULE, what: 'a violation size (true ε)' });
      if (!v.ok) return { ok: false, problem: v.problem };
      detect.push(v.value!);
    }
    r.detect = detect;
  }
  return r;
}

/**
 * An audit's failure naming the samples file (the engine reads the text the page sent, so it says only "samples CSV").
 */
export function auditMessage(message: string, fileName: string | null): string {
  if (!fileName || message.includes(fileName)) return message;
  if (message.startsWith('samples CSV')) return `samples CSV ${fileName}${message.slice('samples CSV'.length)}`;
  return `${fileName}: ${message}`;
}
