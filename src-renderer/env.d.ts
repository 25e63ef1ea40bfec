/// <reference types="vite/client" />

// Engine modules shared with the page read optional tuning from the environment
// behind `typeof process !== 'undefined'`; the page has no Node types, so
// declare just that much.
declare const process: { env?: Record<string, string | undefined> } | undefined;
