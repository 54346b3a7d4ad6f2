// @ts-check
// A small, deterministic, real embedder for tests where the model is not the point: character trigrams of the
// lower-cased text hashed (FNV-1a) into `dims` buckets, plus one constant bucket (no text gives a zero vector),
// normalised. Texts sharing trigrams get similar vectors; `kind` does not change the vector.

/** @param {string} text @param {number} dims @returns {Float32Array} */
export function trigramVector(text, dims) {
  const v = new Float32Array(dims);
  v[0] = 0.25;
  const t = `  ${text.toLowerCase()}  `;
  for (let i = 0; i + 3 <= t.length; i++) {
    let h = 0x811c9dc5;
    for (let j = i; j < i + 3; j++) h = Math.imul(h ^ t.charCodeAt(j), 0x01000193);
    v[1 + ((h >>> 0) % (dims - 1))] += 1;
  }
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  return v.map((x) => x / n);
}

/**
 * An `Embedder` over `trigramVector` that records its calls; with a `salt`, it embeds `salt + text` (another
 * model, for tests that switch embedders).
 * @param {{ id?: string, dims?: number, salt?: string }} [o]
 */
export function trigramEmbedder(o = {}) {
  const dims = o.dims ?? 64;
  /** @type {{ texts: string[], kind: string }[]} */
  const calls = [];
  return {
    id: o.id ?? `test/trigram-${dims}${o.salt ? `-${o.salt}` : ''}`,
    dims,
    normalized: true,
    calls,
    /** @param {string[]} texts @param {'query' | 'passage'} kind */
    async embed(texts, kind) {
      calls.push({ texts, kind });
      return texts.map((t) => trigramVector((o.salt ?? '') + t, dims));
    },
  };
}
