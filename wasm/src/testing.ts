/** Test-only hooks (`edgemem/testing`): not part of the stable API. */

import { bindings, guarded, trapCount } from './runtime.js';

/**
 * Executes `unreachable` inside the shared wasm instance, exactly as a C++ throw or a Rust panic would
 * trap. Rejects with an INTERNAL EdgememError after the instance was re-created; open stores reopen from
 * storage on their next call.
 */
export async function forceTrap(): Promise<void> {
  guarded(() => bindings.__trap());
}

export { trapCount };
