/** A deterministic, offline `Embeddings` for the tests: each word hashed into one of `dims` buckets, L2-normalised. */
import { Embeddings } from '@langchain/core/embeddings';

export class WordEmbeddings extends Embeddings {
  readonly dims: number;
  calls = 0;

  constructor(dims = 32) {
    super({});
    this.dims = dims;
  }

  embed(text: string): number[] {
    const v = new Array<number>(this.dims).fill(0);
    for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
      let h = 2166136261;
      for (const c of word) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
      v[h % this.dims]! += 1;
    }
    const norm = Math.hypot(...v) || 1;
    return v.map((x) => x / norm);
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    this.calls += 1;
    return texts.map((t) => this.embed(t));
  }

  async embedQuery(text: string): Promise<number[]> {
    return this.embed(text);
  }
}
