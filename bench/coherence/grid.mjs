/** The settings swept: CoherenceSettings' numeric fields read from the API types, and the points to try. */

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const GENERATED_PATH = fileURLToPath(new URL('../../js/src/api/generated/engine.ts', import.meta.url));

/**
 * The engine's default CoherenceSettings: `COHERENCE_DEFAULTS` from the package when it exports it, else the
 * literal in the generated API types (js/src/api/generated/engine.ts), else null (no coherence in this build).
 * @param {Record<string, unknown>} [pkg] the imported package
 * @returns {Record<string, number | boolean> | null}
 */
export function coherenceDefaults(pkg = {}) {
  if (pkg.COHERENCE_DEFAULTS && typeof pkg.COHERENCE_DEFAULTS === 'object') {
    return /** @type {Record<string, number | boolean>} */ ({ ...pkg.COHERENCE_DEFAULTS });
  }
  let ts = '';
  try {
    ts = readFileSync(GENERATED_PATH, 'utf8');
  } catch {
    return null;
  }
  const m = /COHERENCE_DEFAULTS\s*:\s*\w+\s*=\s*(\{[^;]*\})\s*;/.exec(ts);
  return m ? JSON.parse(m[1]) : null;
}

/** Rounds to 4 places (thresholds read better, and equal points compare equal). @param {number} x */
const r4 = (x) => Math.round(x * 10000) / 10000;

/**
 * The values tried for one setting around its default: thresholds in [0, 1] from −0.16 to +0.10 of the default
 * (finer near it), other numbers ×0.5 to ×2 (integers stay integers).
 * @param {number | boolean} d the default (a boolean: the other value)
 * @param {boolean} quick fewer values
 * @param {boolean} [threshold] a similarity or overlap in [0, 1] (default: when not an integer; 1.0 reads as 1)
 */
export function valuesAround(d, quick = false, threshold = !Number.isInteger(d)) {
  if (typeof d === 'boolean') return [!d];
  if (threshold && d >= 0 && d <= 1) {
    const steps = quick
      ? [-0.12, -0.06, -0.02, 0.02, 0.06]
      : [-0.16, -0.12, -0.08, -0.05, -0.03, -0.015, 0.015, 0.03, 0.05, 0.1];
    return [...new Set(steps.map((s) => r4(Math.min(1, Math.max(0, d + s)))))]
      .filter((v) => v !== d)
      .sort((a, b) => a - b);
  }
  const factors = quick ? [0.5, 2] : [0.25, 0.5, 1.5, 2, 4];
  const vs = factors.map((f) => (Number.isInteger(d) ? Math.max(0, Math.round(d * f)) : r4(d * f)));
  return [...new Set(vs)].filter((v) => v !== d).sort((a, b) => a - b);
}

/**
 * The points swept: the defaults (settings null) first; each setting alone over its values (the others at their
 * defaults); and the grid of the settings named in `cross` (each over its default and its values). Unique points.
 * @param {Record<string, number | boolean>} defaults the settings and their defaults
 * @param {{ cross?: string[], quick?: boolean, values?: Record<string, (number | boolean)[]> }} [opts]
 * @returns {{ name: string, settings: Record<string, number | boolean> | null }[]}
 */
export function gridPoints(defaults, { cross = [], quick = false, values = {} } = {}) {
  const vals = (/** @type {string} */ k) =>
    values[k] ?? valuesAround(defaults[k], quick, /Similarity|Overlap/.test(k) || !Number.isInteger(defaults[k]));
  /** @type {{ name: string, settings: Record<string, number | boolean> | null }[]} */
  const points = [{ name: 'defaults', settings: null }];
  const seen = new Set(['{}']);
  const add = (/** @type {Record<string, number | boolean>} */ s) => {
    const changed = Object.fromEntries(Object.entries(s).filter(([k, v]) => v !== defaults[k]));
    const key = JSON.stringify(Object.fromEntries(Object.entries(changed).sort()));
    if (seen.has(key)) return;
    seen.add(key);
    const name = Object.entries(changed)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    points.push({ name, settings: changed });
  };
  for (const k of Object.keys(defaults)) for (const v of vals(k)) add({ [k]: v });
  /** @type {Record<string, number | boolean>[]} */
  let grid = [{}];
  for (const k of cross.filter((k) => k in defaults)) {
    grid = grid.flatMap((s) => [defaults[k], ...vals(k)].map((v) => ({ ...s, [k]: v })));
  }
  for (const s of grid) add(s);
  return points;
}
