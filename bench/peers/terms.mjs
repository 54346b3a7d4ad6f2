// Query text → search terms, shared by the three peers (node/sqlite-vec-peer.mjs, node/orama-peer.mjs, plain-do/worker.mjs).
//
// The stopword list is the common English function-word list edgemem's engine uses (core/src/features/search/terms.rs),
// and the LoCoMo reference BM25 (../shared/datasets/locomo/README.md: "question words minus stopwords OR-ed") does
// the same, so every lexical side in the comparison drops the same words: a peer is not handicapped by BM25 noise
// from "what", "did", "the" that the engine does not see.

/** Common English function words; they carry no topic and only add noise to BM25. */
export const STOPWORDS = [
  'a',
  'about',
  'after',
  'all',
  'also',
  'am',
  'an',
  'and',
  'any',
  'are',
  'as',
  'at',
  'be',
  'been',
  'before',
  'being',
  'but',
  'by',
  'can',
  'could',
  'did',
  'do',
  'does',
  'doing',
  'done',
  'for',
  'from',
  'had',
  'has',
  'have',
  'having',
  'he',
  'her',
  'here',
  'hers',
  'him',
  'his',
  'how',
  'i',
  'if',
  'in',
  'into',
  'is',
  'it',
  'its',
  'just',
  'me',
  'might',
  'my',
  'no',
  'not',
  'of',
  'on',
  'or',
  'our',
  'ours',
  'out',
  'over',
  'she',
  'should',
  'so',
  'some',
  'such',
  'than',
  'that',
  'the',
  'their',
  'theirs',
  'them',
  'then',
  'there',
  'these',
  'they',
  'this',
  'those',
  'to',
  'too',
  'up',
  'us',
  'very',
  'was',
  'we',
  'were',
  'what',
  'when',
  'where',
  'which',
  'while',
  'who',
  'whom',
  'why',
  'will',
  'with',
  'would',
  'you',
  'your',
  'yours',
  's',
  't',
  'd',
  'll',
  'm',
  're',
  've',
];
const STOP = new Set(STOPWORDS);

/**
 * Lowercased word tokens (letters and digits) of `text`, in order, deduplicated, at most 64, stopwords removed;
 * the stopwords themselves when nothing else is left.
 * @param {string} text
 * @returns {string[]}
 */
export function queryTerms(text) {
  const all = [];
  for (const w of String(text ?? '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)) {
    if (!w || w.length > 64 || all.includes(w)) continue;
    all.push(w);
    if (all.length >= 64) break;
  }
  const content = all.filter((w) => !STOP.has(w));
  return content.length ? content : all;
}

/**
 * An FTS5 MATCH expression OR-ing every term as a quoted string (never MATCH syntax), or null when there is none.
 * @param {string} text
 * @returns {string | null}
 */
export function fts5OrQuery(text) {
  const terms = queryTerms(text);
  return terms.length ? terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ') : null;
}
