#!/usr/bin/env node
// Launcher: registers tsx in this process and runs the TypeScript CLI
// (src-main/cli/main.ts). Worker threads load tsx themselves.
import { register } from 'tsx/esm/api';

register();
await import('../src-main/cli/main.ts');
