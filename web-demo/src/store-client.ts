/** The page's side of the store Web Worker: typed promises over edgemem/rpc (store-protocol.ts). */
import { EdgememError, RpcClient, type StoreArgs, type StoreResult } from 'edgemem/rpc';
import { isProgress, type Opened, type OpenSettings, type Progress, type StoreMethod } from './store-protocol.ts';

/** A failed request rejects with an EdgememError: the store's code (e.g. CONFLICT when another tab holds it). */
export class StoreClient {
  readonly #rpc: RpcClient;
  /** Called with the built-in embedder's loading progress (while an open or reset loads it). */
  onProgress: ((p: Progress['progress']) => void) | undefined;

  constructor() {
    const worker = new Worker(new URL('./store-worker.ts', import.meta.url), { type: 'module', name: 'edgemem-store' });
    this.#rpc = new RpcClient(worker);
    worker.addEventListener('message', ({ data }: MessageEvent) => {
      if (isProgress(data)) this.onProgress?.(data.progress);
    });
    worker.addEventListener('error', (event) => {
      this.#rpc.failAll(new EdgememError('INTERNAL', `the store worker failed: ${event.message}`));
    });
  }

  open(settings: OpenSettings): Promise<Opened> {
    return this.#rpc.call('open', settings) as Promise<Opened>;
  }

  /** Deletes the store (every memory, its history and checkpoints) and creates it again with `settings`. */
  reset(settings: OpenSettings): Promise<Opened> {
    return this.#rpc.call('reset', settings) as Promise<Opened>;
  }

  call<M extends StoreMethod>(method: M, ...args: StoreArgs<M>): Promise<StoreResult<M>> {
    return this.#rpc.store(method, ...args);
  }
}
