// Peer: Orama (@orama/orama) — pure-JS full-text + vector + hybrid search, the usual in-browser choice; here in Node.
//
// Owns one store for the benchmark's agent-step workload (bench/peers/node/latency.mjs, recall.mjs): memories
// upserted by (namespace, key) with a JSON value, a text and an embedding; GET by (namespace, key); LangGraph-shaped
// checkpoints; top-k search by vector, by text (BM25) or hybrid, all through Orama's own `search`.
//
// How it is configured, and why (Orama 3.1, whose API is synchronous without async hooks — none are set):
// - Memories: one Orama db, schema { namespace: 'enum', text: 'string', embedding: 'vector[384]' }. The document id
//   is namespace path + '\u001f' + key, so PUT is Orama's `upsert` (update = remove + insert when the id exists) and
//   GET is `getByID`. The key and the JSON value live in the document unindexed (Orama stores the whole object, the
//   schema only says what is indexed): GET needs no index but the id map, and indexing the 1 KB value as text would
//   only slow PUT. namespace is an `enum` so a namespace filter (`where`) works, as in a real memory store.
// - Batches: `insertMultiple` when no id exists yet (the documented fast bulk path), else `upsertMultiple`.
// - Full text: Orama's BM25 (defaults k=1.2, b=0.75, d=0.5) with the tokenizer's built-in English stemmer
//   (`stemming: true`, Orama's documented option) and the same stopword list as the SQLite peer and edgemem
//   (../terms.mjs, `stopWords`), so the three lexical sides compare like for like. Orama matches query terms as
//   prefixes of indexed words (its default; `exact: true` would add a case-sensitive all-terms filter instead), and
//   `threshold: 1` (its default) keeps documents matching any term, i.e. OR — as the SQLite query does.
//   Measured on LoCoMo (lexical R@10, categories 1–4): Orama's defaults 0.324, stemming only 0.327, stopwords only
//   0.541, both 0.571 (both + allowDuplicates 0.563) — so this is the best of its documented tokenizer options.
// - Vectors: Orama's vector index is an exact scan (cosine over every stored vector). Its default `similarity`
//   threshold of 0.8 drops hits — on the 10k MiniLM latency store the 10th-nearest memory of *every* LoCoMo question
//   is below 0.8 (median 0.53, minimum 0.27), so top-10 would come back short or empty. Every query passes
//   `similarity: 0` (keep any non-negative cosine): top-10 then always has 10 hits here, and Orama sorts and merges
//   ~9.4k candidates instead of 10k (`-1`, the true floor, costs ~3–4 ms more per vector search at 10k; 0.3 would
//   already leave one question short).
// - Hybrid: Orama's `mode: 'hybrid'` (full-text scores divided by their max, vector similarities by theirs, summed
//   with `hybridWeights` { text: 0.5, vector: 0.5 } — its documented default, set explicitly).
// - `includeVectors: true` on search: with the default (false), Orama 3.1.18 sets the vector field of the *stored*
//   documents to null in place (removeVectorsFromHits / searchVector mutate `result.document`), which costs time
//   and strips the stored embedding; we read only ids and scores, so nothing more is returned.
// - Checkpoints: a second Orama db, schema { threadId: 'enum' } (so a thread's checkpoints can be listed by a `where`
//   filter), id = thread/ns/checkpoint id, the checkpoint, parent id and metadata stored in the document, written with
//   `upsert` (Orama has no key-value API; its docs put arbitrary unindexed fields in documents).
// - Embeddings: Orama's schema validation accepts a vector only as a plain Array, so a Float32Array (what embedding
//   libraries return, and what the workload passes) is converted with Array.from on PUT; the query vector is passed
//   as is (Orama's vector search takes a Float32Array).
// - Orama keeps documents as the JS objects it is given (no serialization, no copy): a PUT stores a reference to
//   the value, a GET returns that same object. That is Orama as its users run it, in memory; persisting it is a
//   separate explicit `save` (@orama/plugin-data-persistence), not measured here.

import { createRequire } from 'node:module';
import { count, create, getByID, insertMultiple, search as oramaSearch, upsert, upsertMultiple } from '@orama/orama';
import { STOPWORDS } from '../terms.mjs';

const require = createRequire(import.meta.url);
const SEP = '\u001f';
const nsPath = (ns) => (Array.isArray(ns) ? ns.join('/') : String(ns));
const MODES = { vector: 'vector', lexical: 'fulltext', hybrid: 'hybrid' };
const SIMILARITY = 0;
const HYBRID_WEIGHTS = { text: 0.5, vector: 0.5 };

/**
 * Opens the peer.
 * @param {{ dims?: number }} [options]
 */
export async function open({ dims = 384 } = {}) {
  const components = { tokenizer: { language: 'english', stemming: true, stopWords: STOPWORDS } };
  const memories = create({ schema: { namespace: 'enum', text: 'string', embedding: `vector[${dims}]` }, components });
  const checkpoints = create({ schema: { threadId: 'enum' } });

  /** The Orama document of a memory (a new object: the caller's is never stored or mutated). */
  const doc = (m) => {
    const namespace = nsPath(m.namespace);
    const d = { id: namespace + SEP + m.key, namespace, key: m.key, text: m.text ?? '', value: m.value ?? null };
    // Orama's schema check takes a plain Array for a vector (Array.isArray); its index keeps a Float32Array copy.
    if (m.embedding) d.embedding = Array.isArray(m.embedding) ? m.embedding : Array.from(m.embedding);
    return d;
  };
  const hits = (res) =>
    res.hits.map((h) => ({ namespace: h.document.namespace.split('/'), key: h.document.key, score: h.score }));

  const versions = { '@orama/orama': require('@orama/orama/package.json').version };
  const config = {
    storage: 'memory (JS objects)',
    schema: { namespace: 'enum', text: 'string', embedding: `vector[${dims}]` },
    tokenizer: { language: 'english', stemming: true, stopWords: 'engine list (bench/peers/terms.mjs)' },
    fulltext: 'BM25 defaults, prefix term matching (exact: false), threshold 1 (any term)',
    vector: `exact cosine scan, similarity ${SIMILARITY}`,
    hybrid: { method: "Orama 'hybrid' (max-normalised scores, weighted sum)", weights: HYBRID_WEIGHTS },
    put: 'upsert (remove + insert when the id exists); batches insertMultiple / upsertMultiple',
    checkpoint: 'second Orama db, schema { threadId: enum }, upsert',
    search: { includeVectors: true },
  };

  return {
    name: 'orama',
    versions,
    config,
    db: memories,
    async putBatch(batch) {
      const docs = batch.map(doc);
      if (docs.every((d) => getByID(memories, d.id) === undefined)) insertMultiple(memories, docs, docs.length);
      else upsertMultiple(memories, docs, docs.length);
    },
    async put(memory) {
      upsert(memories, doc(memory));
    },
    async get(namespace, key) {
      const d = getByID(memories, nsPath(namespace) + SEP + key);
      return d === undefined ? null : d.value;
    },
    async putCheckpoint({ threadId, checkpointNs = '', checkpointId, parentId = null, data, metadata = {} }) {
      upsert(checkpoints, {
        id: `${threadId}${SEP}${checkpointNs}${SEP}${checkpointId}`,
        threadId,
        checkpointNs,
        checkpointId,
        parentId,
        checkpoint: data,
        metadata,
        createdAt: Date.now(),
      });
    },
    /**
     * Top-k by 'vector' (cosine similarity), 'lexical' (BM25) or 'hybrid' (Orama's fused score).
     * @param {{ text?: string, vector?: Float32Array, k?: number, mode?: 'vector'|'lexical'|'hybrid' }} q
     */
    async search({ text, vector, k = 10, mode = 'hybrid' }) {
      if (mode === 'lexical' && !text) return []; // Orama would match every document on an empty term
      const params = { mode: MODES[mode], limit: k, includeVectors: true };
      if (mode !== 'vector') {
        params.term = text ?? '';
        params.properties = ['text'];
      }
      if (mode !== 'lexical') {
        params.vector = { value: vector, property: 'embedding' };
        params.similarity = SIMILARITY;
      }
      if (mode === 'hybrid') params.hybridWeights = HYBRID_WEIGHTS;
      return hits(oramaSearch(memories, params));
    },
    async count() {
      return count(memories);
    },
    async close() {},
  };
}
