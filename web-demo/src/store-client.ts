/** The page's side of the store Web Worker: typed promises over postMessage (store-protocol.ts). */
import type {
  Args,
  Opened,
  OpenSettings,
  Progress,
  Reply,
  RequestBody,
  Result,
  StoreMethod,
  WireError,
} from './store-protocol.ts';

/** A failed request: the store's error code (e.g. CONFLICT when another tab holds the store) and message. */
export class StoreError extends Error {
  readonly code: string;
  constructor(error: WireError) {
    super(error.message);
    this.name = 'StoreError';
    this.code = error.code;
  }
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class StoreClient {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #next = 1;
  /** Called with the built-in embedder's loading progress (while an open or reset loads it). */
  onProgress: ((p: Progress['progress']) => void) | undefined;

  constructor() {
    this.#worker = new Worker(new URL('./store-worker.ts', import.meta.url), { type: 'module', name: 'edgemem-store' });
    this.#worker.onmessage = ({ data }: MessageEvent<Reply>) => {
      if ('progress' in data) {
        this.onProgress?.(data.progress);
        return;
      }
      const p = this.#pending.get(data.id);
      this.#pending.delete(data.id);
      if (data.ok) p?.resolve(data.result);
      else p?.reject(new StoreError(data.error));
    };
    this.#worker.onerror = (event) => {
      const error = new StoreError({ code: 'INTERNAL', message: `the store worker failed: ${event.message}` });
      for (const p of this.#pending.values()) p.reject(error);
      this.#pending.clear();
    };
  }

  #send(request: RequestBody): Promise<unknown> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id });
    });
  }

  open(settings: OpenSettings): Promise<Opened> {
    return this.#send({ type: 'open', settings }) as Promise<Opened>;
  }

  /** Deletes the store (every memory, its history and checkpoints) and creates it again with `settings`. */
  reset(settings: OpenSettings): Promise<Opened> {
    return this.#send({ type: 'reset', settings }) as Promise<Opened>;
  }

  call<M extends StoreMethod>(method: M, ...args: Args<M>): Promise<Result<M>> {
    return this.#send({ type: 'call', method, args } as RequestBody) as Promise<Result<M>>;
  }
}
