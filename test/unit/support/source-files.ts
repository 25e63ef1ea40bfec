/**
 * The source files the house rules read: every .ts (not .d.ts) and .svelte file under a folder, and the code of each.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every .ts (not .d.ts) and .svelte file under dir, node_modules skipped. */
export function sources(dir: string, out: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules') sources(p, out);
    } else if ((e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) || e.name.endsWith('.svelte')) out.push(p);
  }
  return out;
}

/**
 * The code a file holds: a .ts file whole; of a .svelte component only its <script> blocks, every other line
 * blanked so that line numbers stay the component's (the markup is not code: its {#each} blocks are not functions).
 */
export function scriptText(file: string, text: string): string {
  if (!file.endsWith('.svelte')) return text;
  const lines = text.split('\n');
  let inScript = false;
  return lines
    .map((line) => {
      if (!inScript && /<script\b[^>]*>/.test(line)) {
        inScript = !/<\/script>/.test(line);
        return '';
      }
      if (inScript && /<\/script>/.test(line)) {
        inScript = false;
        return '';
      }
      return inScript ? line : '';
    })
    .join('\n');
}
