/**
 * Errors that come from reading a user-given file must name the file, the
 * line and the column, never the content: a client that points a CSV metric
 * at /etc/shadow must not get a line of it back in "'root:...' is not a
 * number". The engine's and the CSV reader's messages quote cells, labels
 * and JSON snippets; here every quoted span becomes '…' unless it is one of
 * the strings the client itself sent (the path, the domain text), and, when
 * the file's text is at hand, any remaining word that occurs in it (a quote
 * inside a cell can break the quoting) is masked too.
 */
import type { JobError } from '../../src-shared/protocol';

/** Words of the engine's message templates: never masked even when a file contains them. */
const TEMPLATE_WORDS = new Set(
  (
    'line lines column columns row rows label labels number numbers file files cell cells distance distances expected header empty edge edges node nodes ' +
    'graph matrix metric cannot read must does match with from that this value values first malformed found quote quotes field fields record length ' +
    'invalid unexpected token valid json position project prior loss item triangle inequality fails symmetric square diagonal negative appears twice ' +
    'points error limit over than folder regular names name self-loop given were only after before must have entries version supported data'
  ).split(' '),
);

const MAX_MESSAGE = 2000;

/**
 * Mask file content in `message`. `keep`: strings the client sent (paths,
 * domain text) that may stay; `contents`: texts of the files read, when known.
 */
function redactFileContent(message: string, keep: readonly string[], contents: readonly string[] = []): string {
  let m = message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
  // 1. protect the strings the client sent
  const kept = [...new Set(keep.filter((k) => k.length > 0))].sort((a, b) => b.length - a.length);
  kept.forEach((k, i) => {
    m = m.split(k).join(`\u0000${i}\u0000`);
  });
  // schema field paths (describeZodError: "field 'domains.0.domain'") are made of the schema's own keys
  m = m.replace(/field '([A-Za-z]+(?:\.(?:\d+|[A-Za-z]+))*)'/g, (_s, f: string) => {
    kept.push(f);
    return `field '\u0000${kept.length - 1}\u0000'`;
  });
  // 2. every quoted span that is not exactly a protected string
  // (an opening quote follows no letter, a closing one is followed by none: "the row's label" is not a span)
  m = m.replace(/(?<!\w)(?:'(?:[^'\n]|'(?=\w))*'|"(?:[^"\n]|"(?=\w))*"|`[^`\n]*`)(?!\w)/g, (span) => {
    const inner = span.slice(1, -1);
    return /^(\u0000\d+\u0000)+$/.test(inner) ? span : `${span[0]}…${span[0]}`;
  });
  // 3. words left over that occur in the file (a quote inside a cell breaks the quoting)
  if (contents.length > 0) {
    let checked = 0;
    m = m.replace(/[^\s\u0000'"`…]+/g, (tok) => {
      if (checked >= 200) return tok;
      const core = tok.replace(/^[\s'"`(),.:;[\]{}]+|[\s'"`(),.:;[\]{}]+$/g, '');
      if (core.length < 3 || /^[-+]?\d+$/.test(core) || core === '…' || TEMPLATE_WORDS.has(core.toLowerCase()))
        return tok;
      checked++;
      return contents.some((c) => c.includes(core)) ? tok.replace(core, '…') : tok;
    });
  }
  // 4. put the protected strings back
  return m.replace(/\u0000(\d+)\u0000/g, (_s, i: string) => kept[Number(i)] ?? '');
}

/** A JobError with its message redacted and only numeric detail kept (row/column indices, values). */
export function redactJobError(err: JobError, keep: readonly string[], contents: readonly string[] = []): JobError {
  const out: JobError = { code: err.code, message: redactFileContent(err.message, keep, contents) };
  if (err.detail) {
    const d: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(err.detail)) if (typeof v === 'number' || typeof v === 'boolean') d[k] = v;
    if (Object.keys(d).length > 0) out.detail = d;
  }
  return out;
}
