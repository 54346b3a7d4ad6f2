/**
 * A search's fusion settings checked against the engine's ranges (`ENGINE_LIMITS.fusion`, generated from the Rust
 * constants the engine checks itself) before they leave the process: the same refusal, in the same words, from a
 * local store, the remote client and the engine.
 */
import { invalid } from './errors.js';
import { ENGINE_LIMITS } from './generated/engine.js';
import type { FusionOptions } from './types.js';

const INTEGERS = new Set(['pool', 'feedbackDocs', 'feedbackTerms', 'neighbourReach']);

/** `f` itself when every setting it names is in its range, else INVALID_ARGUMENT naming the first that is not. */
export function checkFusion<F extends FusionOptions | undefined>(f: F): F {
  if (f === undefined) return f;
  if (typeof f !== 'object' || f === null || Array.isArray(f)) throw invalid('fusion must be an object of settings');
  for (const [name, [lo, hi]] of Object.entries(ENGINE_LIMITS.fusion)) {
    const v = (f as Record<string, unknown>)[name];
    if (v === undefined) continue;
    const int = INTEGERS.has(name);
    if (typeof v !== 'number' || !(v >= lo && v <= hi) || (int && !Number.isInteger(v))) {
      throw invalid(`fusion.${name} must be ${int ? 'an integer' : 'a number'} in ${lo}..=${hi}, got ${String(v)}`);
    }
  }
  return f;
}
