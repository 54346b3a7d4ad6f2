/**
 * The local panel's shared state: the store worker client, the store's latest stats, the chosen embedder (the
 * built-in e5 by default, or an endpoint) and what the worker made of it (vectors on, or why not), and change
 * listeners that the panel's parts register to redraw after a write.
 */
import type { Stats } from 'edgemem';
import { type EmbedderConfig, loadEmbedder, saveEmbedder } from './embedder.ts';
import { StoreClient } from './store-client.ts';
import type { EmbedderChoice, Opened, OpenSettings, Progress } from './store-protocol.ts';

const CAP_KEY = 'edgemem-demo:maxMemories';
export const DEFAULT_CAP = 50;

/** Why vectors are off, or their dims and embedder when on. */
export type VectorState =
  | { on: true; dims: number; id: string }
  | { on: false; reason: string /** recreating the store (erasing it) would turn vectors on */; recreate: boolean };

export class LocalApp {
  readonly client = new StoreClient();
  stats: Stats | null = null;
  /** The endpoint the user set (this tab only), or null: the built-in e5. */
  embedder: EmbedderConfig | null = loadEmbedder();
  opened: Opened | null = null;
  /** The built-in embedder's weights loading, while they load. */
  loading: Progress['progress'] | null = null;
  readonly #listeners: (() => void | Promise<void>)[] = [];

  constructor() {
    this.client.onProgress = (p) => {
      this.loading = p.phase === 'ready' ? null : p;
      for (const fn of this.#listeners) void fn();
    };
  }

  get cap(): number {
    const n = Number(localStorage.getItem(CAP_KEY) ?? DEFAULT_CAP);
    return Number.isSafeInteger(n) && n >= 0 ? n : DEFAULT_CAP;
  }

  choice(): EmbedderChoice {
    return this.embedder ? { kind: 'endpoint', ...this.embedder } : { kind: 'e5' };
  }

  settings(): OpenSettings {
    return { embedder: this.choice(), maxMemories: this.cap };
  }

  async open(): Promise<void> {
    this.#took(await this.client.open(this.settings()));
    await this.changed();
  }

  async setCap(maxMemories: number): Promise<void> {
    localStorage.setItem(CAP_KEY, String(maxMemories));
    await this.open();
  }

  async reset(): Promise<void> {
    this.#took(await this.client.reset(this.settings()));
    await this.changed();
  }

  #took(opened: Opened): void {
    this.opened = opened;
    this.stats = opened.stats;
    this.loading = null;
  }

  /** Saves the endpoint (null: back to the built-in e5) and reopens the store with it. */
  async setEmbedder(config: EmbedderConfig | null): Promise<void> {
    saveEmbedder(config);
    this.embedder = config;
    await this.open();
  }

  vectors(): VectorState {
    const o = this.opened;
    if (o?.embedder) return { on: true, dims: o.embedder.dims, id: o.embedder.id };
    return { on: false, reason: o?.embedderError ?? 'the store is not open yet', recreate: o?.recreate ?? false };
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
