/**
 * The wasm instance every local store shares, and trap recovery: a `WebAssembly.RuntimeError` escaping a
 * call (a C++ throw, a Rust panic, `unreachable`) poisons the instance, so the runtime re-instantiates the
 * module (wasm-bindgen's reset-state function) and bumps `generation`; each store then reopens from its
 * page store before its next call (local-store.ts). Nothing acknowledged is lost: pages live in the host.
 */

import * as bindings from '../../dist-wasm/edgemem_wasm.js';
import { EdgememError } from '../api/errors.js';

export { bindings };
export type WasmStore = bindings.WasmStore;

/** The compiled module, or its bytes. */
export type WasmSource = WebAssembly.Module | BufferSource;

let ready = false;
let generation = 0;
let traps = 0;

export function isReady(): boolean {
  return ready;
}

/** Instantiates the module once per process (later calls do nothing). */
export function initRuntime(source: WasmSource): void {
  if (ready) return;
  bindings.initSync({ module: source });
  ready = true;
}

/** Incremented each time the instance is replaced after a trap. */
export function currentGeneration(): number {
  return generation;
}

/** How many traps this process has recovered from. */
export function trapCount(): number {
  return traps;
}

/**
 * Runs `f` (which calls into wasm). A trap re-creates the instance and is rethrown as an INTERNAL
 * EdgememError; every other throw passes through unchanged.
 */
export function guarded<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (!(e instanceof WebAssembly.RuntimeError)) throw e;
    throw recover(e);
  }
}

function recover(trap: WebAssembly.RuntimeError): EdgememError {
  let detail: string | undefined;
  try {
    detail = bindings.lastCxxError(); // best effort: read from the poisoned instance before it goes
  } catch {
    detail = undefined;
  }
  bindings.__wbg_reset_state();
  generation++;
  traps++;
  const what = detail ? `${trap.message}; ${detail}` : trap.message;
  return new EdgememError(
    'INTERNAL',
    `the wasm instance trapped (${what}); it was re-created and stores reopen from storage — this call had no effect`,
    { cause: trap },
  );
}
