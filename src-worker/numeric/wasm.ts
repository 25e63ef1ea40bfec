/**
 * The part of the WebAssembly API the engine's kernels use (the project's type libraries do not declare it):
 * memories, synchronous compilation and instantiation (the modules are a few hundred bytes).
 */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

export const Wasm = (
  globalThis as unknown as {
    WebAssembly: {
      Memory: new (d: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
      Module: new (bytes: Uint8Array) => object;
      Instance: new (module: object, imports: object) => { exports: unknown };
    };
  }
).WebAssembly;

/** Bytes of a WebAssembly memory page. */
export const WASM_PAGE = 65536;
