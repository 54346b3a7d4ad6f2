/** Test-only hooks (`edgemem/testing`): not part of the stable API. */

import { bindings, guarded, isReady, trapCount } from '../local/runtime.js';

/**
 * Executes `unreachable` inside the shared wasm instance, exactly as a C++ throw or a Rust panic would
 * trap. Rejects with an INTERNAL EdgememError after the instance was re-created; open stores reopen from
 * storage on their next call.
 */
export async function forceTrap(): Promise<void> {
  guarded(() => bindings.__trap());
}

export { trapCount };

/**
 * Arms a trap inside the shared wasm instance at the `n`-th page write from now (through any page
 * store), i.e. in the middle of the next write transaction: the call rejects with INTERNAL and its
 * half-written pages must be rolled back when the store reopens. `n = 0` disarms.
 */
export function trapAfterPageWrites(n: number): void {
  bindings.__trapAfterPageWrites(n);
}

/** The shared wasm instance's linear memory in bytes (0 before the first local store opens), for memory benches. */
export function wasmMemoryBytes(): number {
  if (!isReady()) return 0;
  // Once instantiated, wasm-bindgen's initSync hands back the current instance's exports and ignores its argument.
  const current = bindings.initSync as unknown as () => { memory: WebAssembly.Memory };
  return current().memory.buffer.byteLength;
}

/** How the engine calls a host page store (its `readPage` copies pages into wasm memory), for unit tests. */
export { EnginePages } from '../local/engine-pages.js';
