/** Minimal, strict argument parsing for `mechstudio COMMAND [positional] --flag value ...`. */
import { invalid } from '../../src-shared/errors';
import { numberProblem, parseDecimal } from '../fs/inputs';

export interface ParsedArgs {
  command: string;
  positional: string[];
  flags: Map<string, string | true>;
  /** Progress of reading a large input (a points CSV) while the job is planned: the CLI's progress lines on stderr. */
  onReadProgress?: (fraction: number, message: string) => void;
}

/** Flags that take no value. */
const BOOLEAN_FLAGS = new Set(['json', 'kernels', 'print', 'help', 'quiet', 'list', 'remap', 'over-budget']);

export function parseArgs(argv: string[]): ParsedArgs {
  const [command, ...rest] = argv;
  if (!command) invalid('no command given; try: mechstudio help');
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
      if (name === '') invalid(`bad option '${a}'`);
      if (flags.has(name)) invalid(`option --${name} given twice`);
      if (BOOLEAN_FLAGS.has(name)) {
        if (eq >= 0) invalid(`option --${name} takes no value`);
        flags.set(name, true);
      } else if (eq >= 0) {
        flags.set(name, a.slice(eq + 1));
      } else {
        const v = rest[i + 1];
        if (v === undefined || (v.startsWith('--') && v.length > 2)) invalid(`option --${name} needs a value`);
        flags.set(name, v);
        i++;
      }
    } else if (a === '-h') {
      flags.set('help', true);
    } else {
      positional.push(a);
    }
  }
  return { command, positional, flags };
}

export class Flags {
  private readonly used = new Set<string>();
  constructor(
    private readonly args: ParsedArgs,
    allowed: readonly string[],
  ) {
    for (const k of args.flags.keys()) {
      if (!allowed.includes(k) && k !== 'help' && k !== 'threads') {
        invalid(`unknown option --${k} for '${args.command}' (allowed: ${allowed.map((a) => `--${a}`).join(', ')})`);
      }
    }
  }
  has(name: string): boolean {
    return this.args.flags.has(name);
  }
  str(name: string): string | undefined {
    this.used.add(name);
    const v = this.args.flags.get(name);
    if (v === true) invalid(`option --${name} needs a value`);
    return v;
  }
  need(name: string, example: string): string {
    const v = this.str(name);
    if (v === undefined || v === '') invalid(`missing --${name} (e.g. --${name} ${example})`);
    return v;
  }
  num(name: string): number | undefined {
    const v = this.str(name);
    if (v === undefined) return undefined;
    const x = parseDecimal(v);
    if (x === null)
      invalid(
        `--${name} must be a decimal number, got '${v.length > 40 ? `${v.slice(0, 40)}...` : v}' (${numberProblem(v) === 'is not a number' ? 'not a decimal number' : `it ${numberProblem(v)}`})`,
      );
    return x;
  }
  /** eps-like: finite and > 0. */
  positive(name: string): number | undefined {
    const x = this.num(name);
    if (x !== undefined && !(x > 0)) invalid(`--${name} must be a number > 0, got ${x}`);
    return x;
  }
  needPositive(name: string, example: string): number {
    if (!this.has(name)) invalid(`missing --${name} (e.g. --${name} ${example})`);
    return this.positive(name)!;
  }
  bool(name: string): boolean {
    return this.args.flags.get(name) === true;
  }
}
