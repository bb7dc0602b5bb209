// A WebAssembly module's exports, made from its bytes as base64 (wasm/*Bytes.ts, so that the bundle and
// tsx need no loader); null where there is no WebAssembly with SIMD, and the caller does the work in
// JavaScript.

/** The part of the WebAssembly API used here (core's type libraries have no DOM). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}

export function wasmExports<T>(base64: string): T | null {
  try {
    const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly!;
    return new wasm.Instance(new wasm.Module(Buffer.from(base64, 'base64'))).exports as T;
  } catch {
    return null;
  }
}
