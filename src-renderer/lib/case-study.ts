/**
 * Pure helpers of the case-study view: findings text (markdown
 * paragraphs and "- " bullets with **bold** and `code`) turned into blocks
 * and inline segments the view renders as elements (never as raw HTML), and
 * a case-study table as CSV.
 */
import { plainText } from './plain';
import type { CaseStudyTable } from '../../src-shared/protocol/index';

interface Segment {
  text: string;
  bold?: boolean;
  code?: boolean;
}
interface FindingBlock {
  kind: 'p' | 'li';
  segments: Segment[];
}

/** **bold** and `code` spans; unmatched markers stay literal. */
export function inlineSegments(text: string): Segment[] {
  const out: Segment[] = [];
  const re = /\*\*([^*]+)\*\*|`([^`]+)`/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index) });
    out.push(m[1] !== undefined ? { text: m[1], bold: true } : { text: m[2]!, code: true });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last) });
  return out;
}

/** Each finding may hold several lines; "- " / "* " lines are bullets, the rest paragraphs. */
export function findingBlocks(findings: readonly string[]): FindingBlock[] {
  const out: FindingBlock[] = [];
  for (const f of findings) {
    for (const raw of f.split(/\r?\n/)) {
      const line = raw.trim();
      if (!line) continue;
      const bullet = /^[-*]\s+/.exec(line);
      out.push({
        kind: bullet ? 'li' : 'p',
        segments: inlineSegments(plainText(bullet ? line.slice(bullet[0].length) : line)),
      });
    }
  }
  return out;
}

/** A case study's parameter name in words: "noiseEpsilons" as "noise ε", "levelWidth" as "level width". */
export function paramWords(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\bepsilons?\b|\beps\b/g, 'ε')
    .replace(/\blp\b/g, 'LP');
}

function csvCell(v: string | number | boolean | null): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** RFC 4180 CSV of a case-study table (null cells empty, numbers at full precision). */
export function tableToCsv(t: Pick<CaseStudyTable, 'header' | 'rows'>): string {
  return [t.header, ...t.rows].map((r) => r.map(csvCell).join(',')).join('\n') + '\n';
}

/** A table cell for display: numbers to 6 significant digits, null as a dash. */
export function cellText(v: string | number | boolean | null): string {
  if (v === null) return '—';
  if (typeof v === 'number')
    return Number.isInteger(v) || !Number.isFinite(v) ? String(v) : String(Number(v.toPrecision(6)));
  return String(v);
}
