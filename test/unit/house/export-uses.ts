/**
 * Who imports what: every export of the project's TypeScript files and every
 * file that imports it, read from the import statements alone (the TypeScript
 * parser, no type checker, so the whole tree is read in about a second).
 * Used by test/unit/house/unused-exports.test.ts and
 * test/unit/house/engine-index.test.ts.
 *
 * A name is used by a file when the file imports it (`import { x }`, a
 * default import, `export { x } from`, `const { x } = await import(...)`,
 * `typeof import('...').x`), reads it off a namespace import (`ns.x`), or
 * takes the whole namespace (`import * as ns` passed on, `export * as ns`, a
 * bare `await import(...)`: every name). A name reached through
 * `export * from` is credited to the file that defines it. `.svelte`
 * components are read through their `<script>` blocks.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';

/** One file's exports and imports, as read from its text. */
export interface ModuleFacts {
  /** Names the file declares and exports itself (`export function x`, `export { x }`, `export default`). */
  readonly own: Set<string>;
  /** Names the file re-exports: exported name -> [source file, name there]. */
  readonly reexports: Map<string, { readonly from: string; readonly name: string }>;
  /** Sources of `export * from`. */
  readonly stars: string[];
  /** Names this file takes from other files: source file -> names ('*' for all). */
  readonly uses: Map<string, Set<string>>;
}

const SOURCE = /\.(ts|mts|mjs|js|svelte)$/;

/** The file a relative specifier names (`./x`, `./x.js`, `./x/index`, `./x.svelte`), or undefined. */
export function resolveSpecifier(
  fromFile: string,
  spec: string,
  exists: (p: string) => boolean = isFile,
): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(fromFile), spec);
  const candidates = [
    base,
    `${base}.ts`,
    join(base, 'index.ts'),
    base.replace(/\.js$/, '.ts'),
    `${base}.js`,
    `${base}.mjs`,
  ];
  return candidates.find((c) => SOURCE.test(c) && exists(c));
}

function isFile(p: string): boolean {
  return existsSync(p) && statSync(p).isFile();
}

/** The script of a file: a .svelte component's `<script>` blocks, any other file whole. */
function scriptOf(file: string, text: string): string {
  if (!file.endsWith('.svelte')) return text;
  return [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
}

const hasExport = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const hasDefault = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

/** Names bound by a declaration statement (`export const a = 1, { b } = c;` binds a and b). */
function declaredNames(node: ts.Node): string[] {
  if (ts.isVariableStatement(node)) return node.declarationList.declarations.flatMap((d) => bindingNames(d.name));
  const name = (node as ts.NamedDeclaration).name;
  return name && ts.isIdentifier(name) ? [name.text] : [];
}

function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

/** Reads one file's exports and imports; `resolveFile` maps a specifier to a file (undefined: a package, ignored). */
export function moduleFacts(
  file: string,
  text: string,
  resolveFile: (spec: string) => string | undefined,
): ModuleFacts {
  const src = ts.createSourceFile(file, scriptOf(file, text), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const facts: ModuleFacts = { own: new Set(), reexports: new Map(), stars: [], uses: new Map() };
  const use = (target: string, name: string): void => {
    const set = facts.uses.get(target) ?? new Set<string>();
    set.add(name);
    facts.uses.set(target, set);
  };
  const namespaces = new Map<string, string>(); // local namespace name -> source file

  for (const st of src.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const target = resolveFile(st.moduleSpecifier.text);
      const clause = st.importClause;
      if (!target || !clause) continue;
      if (clause.name) use(target, 'default');
      const nb = clause.namedBindings;
      if (nb && ts.isNamespaceImport(nb)) namespaces.set(nb.name.text, target);
      else if (nb) for (const el of nb.elements) use(target, (el.propertyName ?? el.name).text);
    } else if (ts.isExportDeclaration(st)) {
      const target =
        st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? resolveFile(st.moduleSpecifier.text) : undefined;
      const clause = st.exportClause;
      if (st.moduleSpecifier && !target) {
        // a package's names passed on: the file exports them, nothing of ours is used
        if (clause && ts.isNamedExports(clause)) for (const el of clause.elements) facts.own.add(el.name.text);
        continue;
      }
      if (!clause) facts.stars.push(target!);
      else if (ts.isNamespaceExport(clause)) {
        facts.reexports.set(clause.name.text, { from: target!, name: '*' });
        use(target!, '*');
      } else
        for (const el of clause.elements) {
          const inner = (el.propertyName ?? el.name).text;
          if (target) {
            facts.reexports.set(el.name.text, { from: target, name: inner });
            use(target, inner);
          } else facts.own.add(el.name.text);
        }
    } else if (ts.isExportAssignment(st)) facts.own.add('default');
    else if (hasExport(st)) for (const n of hasDefault(st) ? ['default'] : declaredNames(st)) facts.own.add(n);
  }

  // `export { a as b }` of an imported name re-exports it (`import { a } from './x'; export { a }`)
  const imported = new Map<string, { from: string; name: string }>();
  for (const st of src.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const target = resolveFile(st.moduleSpecifier.text);
    const nb = st.importClause?.namedBindings;
    if (target && nb && ts.isNamedImports(nb))
      for (const el of nb.elements)
        imported.set(el.name.text, { from: target, name: (el.propertyName ?? el.name).text });
  }
  for (const st of src.statements) {
    if (!ts.isExportDeclaration(st) || st.moduleSpecifier || !st.exportClause || !ts.isNamedExports(st.exportClause))
      continue;
    for (const el of st.exportClause.elements) {
      const via = imported.get((el.propertyName ?? el.name).text);
      if (via) {
        facts.own.delete(el.name.text);
        facts.reexports.set(el.name.text, via);
      }
    }
  }

  const visit = (node: ts.Node): void => {
    // namespace members: ns.x reads x; ns anywhere else takes every name
    if (ts.isIdentifier(node) && namespaces.has(node.text) && !ts.isNamespaceImport(node.parent)) {
      const target = namespaces.get(node.text)!;
      const p = node.parent;
      if ((ts.isPropertyAccessExpression(p) && p.expression === node) || (ts.isQualifiedName(p) && p.left === node)) {
        use(target, ts.isPropertyAccessExpression(p) ? p.name.text : (p as ts.QualifiedName).right.text);
      } else use(target, '*');
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      const target = arg && ts.isStringLiteralLike(arg) ? resolveFile(arg.text) : undefined;
      if (target) for (const n of dynamicNames(node)) use(target, n);
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      const target = resolveFile(node.argument.literal.text);
      if (target) use(target, node.qualifier ? leftmost(node.qualifier) : '*');
    }
    ts.forEachChild(node, visit);
  };
  visit(src);
  return facts;
}

function leftmost(q: ts.EntityName): string {
  return ts.isIdentifier(q) ? q.text : leftmost(q.left);
}

/**
 * Names read off `import(...)`: `const { a, b } = await import(...)`, `(await import(...)).a`, `import(...).then((m) =>
 * m.a)`; else all.
 */
function dynamicNames(call: ts.CallExpression): string[] {
  let e: ts.Node = call;
  while (ts.isParenthesizedExpression(e.parent) || ts.isAwaitExpression(e.parent) || ts.isAsExpression(e.parent))
    e = e.parent;
  const p = e.parent;
  if (ts.isVariableDeclaration(p) && ts.isObjectBindingPattern(p.name)) {
    return p.name.elements.map((el) =>
      el.propertyName && ts.isIdentifier(el.propertyName) ? el.propertyName.text : (el.name as ts.Identifier).text,
    );
  }
  if (ts.isPropertyAccessExpression(p) && p.expression === e && p.name.text !== 'then') return [p.name.text];
  return ['*'];
}

/** One export no other file uses. */
export interface UnusedExport {
  readonly file: string;
  readonly name: string;
}

/** Facts of every file in `files` (absolute paths); `read` gives a file's text. */
export function readModules(
  files: readonly string[],
  read: (f: string) => string = (f) => readFileSync(f, 'utf8'),
  exists?: (p: string) => boolean,
): Map<string, ModuleFacts> {
  const out = new Map<string, ModuleFacts>();
  for (const f of files)
    out.set(
      f,
      moduleFacts(f, read(f), (spec) => resolveSpecifier(f, spec, exists)),
    );
  return out;
}

/** Every exported name of a file, its own, re-exported and reached through `export *` (cycles cut). */
export function exportedNames(modules: Map<string, ModuleFacts>, file: string, seen = new Set<string>()): Set<string> {
  const m = modules.get(file);
  if (!m || seen.has(file)) return new Set();
  seen.add(file);
  const out = new Set([...m.own, ...m.reexports.keys()]);
  for (const s of m.stars) for (const n of exportedNames(modules, s, seen)) if (n !== 'default') out.add(n);
  return out;
}

/**
 * Which (file, name) exports are used by another file: a use of a name a
 * file reaches through `export *` is credited to the file it comes from;
 * '*' uses every name.
 */
export function usedExports(modules: Map<string, ModuleFacts>): Map<string, Map<string, Set<string>>> {
  const used = new Map<string, Map<string, Set<string>>>(); // file -> name -> users
  const credit = (file: string, name: string, user: string, seen: Set<string>): void => {
    const m = modules.get(file);
    if (!m || seen.has(file)) return;
    seen.add(file);
    if (name === '*') {
      for (const n of exportedNames(modules, file)) credit(file, n, user, new Set());
      return;
    }
    if (m.own.has(name) || m.reexports.has(name)) {
      const names = used.get(file) ?? new Map<string, Set<string>>();
      names.set(name, (names.get(name) ?? new Set()).add(user));
      used.set(file, names);
      return;
    }
    for (const s of m.stars) credit(s, name, user, seen);
  };
  for (const [user, m] of modules)
    for (const [target, names] of m.uses)
      for (const n of names) if (target !== user) credit(target, n, user, new Set());
  return used;
}

/** Exports of the `checked` files that no other file of `modules` uses. */
export function unusedExports(modules: Map<string, ModuleFacts>, checked: readonly string[]): UnusedExport[] {
  const used = usedExports(modules);
  const out: UnusedExport[] = [];
  for (const file of checked) {
    const m = modules.get(file);
    if (!m) continue;
    for (const name of [...m.own, ...m.reexports.keys()]) if (!used.get(file)?.has(name)) out.push({ file, name });
  }
  return out;
}
