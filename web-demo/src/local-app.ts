/**
 * The local panel's shared state: the store worker client, the store's latest stats, the embedding endpoint
 * and whether vectors can be used (vector-mode), and change listeners that the panel's parts register to
 * redraw after a write.
 */
import type { Stats } from 'edgemem';
import { embed, loadEmbedder, saveEmbedder, type EmbedderConfig } from './embedder.ts';
import { StoreClient } from './store-client.ts';
import type { OpenSettings } from './store-protocol.ts';

const CAP_KEY = 'edgemem-demo:maxMemories';
export const DEFAULT_CAP = 50;

/** Why vectors are off, or their dims when on. */
export type VectorState =
  | { on: true; dims: number }
  | { on: false; reason: string; /** set when recreating the store with these dims would turn vectors on */ fixDims?: number };

export class LocalApp {
  readonly client = new StoreClient();
  stats: Stats | null = null;
  embedder: EmbedderConfig | null = loadEmbedder();
  /** The endpoint's vector length (from a probe), or its error. */
  embedderDims: number | null = null;
  embedderError: string | null = null;
  readonly #listeners: (() => void | Promise<void>)[] = [];

  get cap(): number {
    const n = Number(localStorage.getItem(CAP_KEY) ?? DEFAULT_CAP);
    return Number.isSafeInteger(n) && n >= 0 ? n : DEFAULT_CAP;
  }

  settings(): OpenSettings {
    return { dims: this.embedderDims ?? 0, maxMemories: this.cap };
  }

  async open(): Promise<void> {
    this.stats = (await this.client.open(this.settings())).stats;
    await this.changed();
  }

  async setCap(maxMemories: number): Promise<void> {
    localStorage.setItem(CAP_KEY, String(maxMemories));
    await this.open();
  }

  async reset(): Promise<void> {
    this.stats = (await this.client.reset(this.settings())).stats;
    await this.changed();
  }

  /** Saves (or clears) the endpoint and probes it for its vector length. */
  async setEmbedder(config: EmbedderConfig | null): Promise<void> {
    saveEmbedder(config);
    this.embedder = config;
    await this.probe();
    await this.changed();
  }

  async probe(): Promise<void> {
    this.embedderDims = null;
    this.embedderError = null;
    if (!this.embedder) return;
    try {
      this.embedderDims = (await embed(this.embedder, ['dimension probe']))[0]?.length ?? null;
    } catch (e) {
      this.embedderError = e instanceof Error ? e.message : String(e);
    }
  }

  vectors(): VectorState {
    if (!this.embedder) return { on: false, reason: 'no embedding endpoint is set' };
    if (this.embedderDims === null) return { on: false, reason: `the embedding endpoint failed: ${this.embedderError ?? 'no answer'}` };
    const storeDims = this.stats?.dims ?? 0;
    if (storeDims !== this.embedderDims) {
      const has = storeDims === 0 ? 'without vectors' : `for ${storeDims}-dimension vectors`;
      return { on: false, reason: `this store was created ${has}; the endpoint gives ${this.embedderDims}`, fixDims: this.embedderDims };
    }
    return { on: true, dims: storeDims };
  }

  /** The embedding of `text` when vectors are on, else undefined. */
  async embedding(text: string): Promise<number[] | undefined> {
    if (!this.vectors().on || !this.embedder || !text) return undefined;
    return (await embed(this.embedder, [text]))[0];
  }

  onChange(fn: () => void | Promise<void>): void {
    this.#listeners.push(fn);
  }

  /** Re-reads the stats, then lets every part redraw. */
  async changed(): Promise<void> {
    this.stats = await this.client.call('stats');
    for (const fn of this.#listeners) await fn();
  }
}
