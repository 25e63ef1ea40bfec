/** Types of scripts/built-fresh.mjs for the TypeScript sources that import it (web mode's renderer build). */
export function builtIsFresh(root: string, outputs: string[], record?: string): boolean;
export function sourceFiles(root: string, dirs: string[]): string[];
export function writeBuildRecord(root: string, record: string, builtAt: number, inputs: string[], note: string): void;
