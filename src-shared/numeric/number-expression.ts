/**
 * Numbers written as small expressions, for the fields where users think in
 * them: a privacy level "ln 4", a per-km eps "ln(2)/2", "2*ln 3", "e^-1".
 *
 * Grammar (whitespace ignored between tokens):
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := ('+' | '-') unary | power
 *   power   := primary ('^' unary)?            right-associative: 2^3^2 = 2^9
 *   primary := decimal | 'e' | 'pi' | '(' expr ')' | func primary
 *   func    := 'ln' | 'log' (natural, as ln) | 'log2' | 'log10' | 'exp' | 'sqrt'
 * A function applies to the primary right after it: "ln 4 / 2" is (ln 4)/2,
 * "ln(2)/2" the same. Decimals are the engine's strict literals
 * (numeric/decimal.ts): no hex, no "Infinity". The value must be a finite
 * number; a domain error (ln of a negative, division by 0) is reported with
 * the part of the text that caused it, never returned as NaN or Infinity.
 */
import { decimalProblem } from './decimal';

type NumberExpressionResult = { ok: true; value: number } | { ok: false; problem: string };

const FUNCTIONS: Record<string, (x: number) => number> = {
  ln: Math.log,
  log: Math.log,
  log2: Math.log2,
  log10: Math.log10,
  exp: Math.exp,
  sqrt: Math.sqrt,
};
const CONSTANTS: Record<string, number> = { e: Math.E, pi: Math.PI };

type Token =
  { kind: 'num'; value: number; text: string } | { kind: 'word'; text: string } | { kind: 'op'; text: string };

class ExpressionError extends Error {}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if ('+-*/^()'.includes(ch)) {
      tokens.push({ kind: 'op', text: ch });
      i++;
      continue;
    }
    if (/[0-9.]/.test(ch)) {
      // digits [. digits] [e[+-]digits]; an exponent needs digits ("2e" is 2 then the name e: refused as unexpected)
      const m = /^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(text.slice(i))!;
      const lit = m[0];
      const problem = decimalProblem(lit);
      if (problem !== undefined) throw new ExpressionError(`'${lit}' ${problem}`);
      tokens.push({ kind: 'num', value: Number(lit), text: lit });
      i += lit.length;
      continue;
    }
    if (/[A-Za-z]/.test(ch)) {
      const m = /^[A-Za-z][A-Za-z0-9]*/.exec(text.slice(i))!;
      tokens.push({ kind: 'word', text: m[0].toLowerCase() });
      i += m[0].length;
      continue;
    }
    throw new ExpressionError(`unexpected '${ch}'`);
  }
  return tokens;
}

/** Evaluate a number expression (see the grammar above). */
export function evaluateNumberExpression(text: string): NumberExpressionResult {
  if (text.trim() === '') return { ok: false, problem: 'is empty' };
  try {
    const tokens = tokenize(text);
    let pos = 0;
    const peek = (): Token | undefined => tokens[pos];
    const isOp = (t: Token | undefined, op: string): boolean => t?.kind === 'op' && t.text === op;
    const finite = (v: number, what: string): number => {
      if (!Number.isFinite(v)) throw new ExpressionError(`${what} is not a finite number`);
      return v;
    };
    // One left-associative level: operand (op operand)*, each op applied by its rule.
    const leftAssociative =
      (operand: () => number, rules: Partial<Record<string, (a: number, b: number) => number>>) => (): number => {
        let v = operand();
        for (;;) {
          const t = peek();
          const rule = t?.kind === 'op' ? rules[t.text] : undefined;
          if (!rule) return v;
          pos++;
          v = rule(v, operand());
        }
      };
    const term = leftAssociative(() => unary(), {
      '*': (a, b) => finite(a * b, 'the product'),
      '/': (a, b) => {
        if (b === 0) throw new ExpressionError('divides by 0');
        return finite(a / b, 'the quotient');
      },
    });
    const expr = leftAssociative(term, {
      '+': (a, b) => finite(a + b, 'the sum'),
      '-': (a, b) => finite(a - b, 'the difference'),
    });
    const unary = (): number => {
      const t = peek();
      if (isOp(t, '-')) {
        pos++;
        return -unary();
      }
      if (isOp(t, '+')) {
        pos++;
        return unary();
      }
      return power();
    };
    const power = (): number => {
      const base = primary();
      if (isOp(peek(), '^')) {
        pos++;
        return finite(base ** unary(), 'the power');
      }
      return base;
    };
    const primary = (): number => {
      const t = peek();
      if (!t) throw new ExpressionError('ends too early');
      pos++;
      if (t.kind === 'num') return t.value;
      if (isOp(t, '(')) {
        const v = expr();
        if (!isOp(peek(), ')')) throw new ExpressionError("has a '(' without its ')'");
        pos++;
        return v;
      }
      if (t.kind === 'word') {
        const c = CONSTANTS[t.text];
        if (c !== undefined) return c;
        const f = FUNCTIONS[t.text];
        if (!f) throw new ExpressionError(`'${t.text}' is not a known name (ln, log2, log10, exp, sqrt, e, pi)`);
        const arg = primary();
        if ((t.text.startsWith('log') || t.text === 'ln') && !(arg > 0))
          throw new ExpressionError(`${t.text} needs a positive argument, got ${arg}`);
        if (t.text === 'sqrt' && arg < 0) throw new ExpressionError(`sqrt needs a non-negative argument, got ${arg}`);
        return finite(f(arg), `${t.text}(${arg})`);
      }
      throw new ExpressionError(`unexpected '${t.text}'`);
    };
    const v = expr();
    if (pos < tokens.length) throw new ExpressionError(`unexpected '${tokens[pos]!.text}'`);
    return { ok: true, value: finite(v, 'the value') };
  } catch (e) {
    if (e instanceof ExpressionError) return { ok: false, problem: e.message };
    throw e;
  }
}
