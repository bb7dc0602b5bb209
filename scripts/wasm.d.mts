// Types of scripts/wasm.mjs for the tests that import it.
export function compileWat(file: string): Promise<Buffer>;
export function bytesModule(name: string, bytes: Buffer): string;
