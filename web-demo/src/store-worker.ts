/**
 * The demo's store Web Worker (a module worker): the edgemem engine with its database in OPFS (synchronous
 * access handles exist only in dedicated workers), answering the page's requests (store-protocol.ts) one at a
 * time, in order. The store survives reloads; one tab at a time can hold it (a second gets CONFLICT).
 */
import { openStore, type MemoryStore, type OpenOptions } from 'edgemem';
import type { OpenSettings, Reply, Request, StoreMethod, WireError } from './store-protocol.ts';

export const STORE_NAME = 'edgemem-demo';

const scope = self as unknown as {
  postMessage(message: Reply): void;
  onmessage: ((event: MessageEvent<Request>) => void) | null;
};

let store: MemoryStore | undefined;

/**
 * Opens the store, waiting up to 3 s while it is held elsewhere (CONFLICT): right after a reload the previous
 * page's worker may not have released its OPFS handles yet. A second tab still gets CONFLICT in the end.
 */
async function openPatiently(options: OpenOptions): Promise<MemoryStore> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await openStore(options);
    } catch (e) {
      if ((e as { code?: string }).code !== 'CONFLICT' || attempt >= 15) throw e;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

async function open(settings: OpenSettings): Promise<unknown> {
  await store?.close();
  store = undefined;
  // dims only shapes a new store; an existing one keeps its own: when it differs (DIMENSION_MISMATCH), open
  // with 0, "whatever it has", and let the page offer to recreate it.
  const options = { storage: { opfs: STORE_NAME }, maxMemories: settings.maxMemories };
  try {
    store = await openPatiently({ ...options, dims: settings.dims });
  } catch (e) {
    if ((e as { code?: string }).code !== 'DIMENSION_MISMATCH') throw e;
    store = await openPatiently({ ...options, dims: 0 });
  }
  return { stats: await store.stats(), name: STORE_NAME };
}

/** Closes the store and deletes its OPFS folder, then opens a new one with `settings`. */
async function reset(settings: OpenSettings): Promise<unknown> {
  await store?.close();
  store = undefined;
  const root = await navigator.storage.getDirectory();
  try {
    const dir = await root.getDirectoryHandle('edgemem');
    await dir.removeEntry(STORE_NAME, { recursive: true });
  } catch (e) {
    if (!(e instanceof DOMException && e.name === 'NotFoundError')) throw e;
  }
  return open(settings);
}

async function call(method: StoreMethod, args: unknown[]): Promise<unknown> {
  if (!store) throw Object.assign(new Error('the store is not open'), { code: 'INVALID_ARGUMENT' });
  const fn = store[method] as (...a: unknown[]) => Promise<unknown>;
  return fn.apply(store, args);
}

function wireError(e: unknown): WireError {
  const err = e as { code?: unknown; message?: unknown };
  return { code: typeof err?.code === 'string' ? err.code : 'INTERNAL', message: String(err?.message ?? e) };
}

let queue: Promise<void> = Promise.resolve();

scope.onmessage = ({ data }) => {
  // One request at a time: a reopen never interleaves with a call.
  queue = queue.then(async () => {
    try {
      const result =
        data.type === 'open' ? await open(data.settings)
        : data.type === 'reset' ? await reset(data.settings)
        : await call(data.method, data.args);
      scope.postMessage({ id: data.id, ok: true, result });
    } catch (e) {
      scope.postMessage({ id: data.id, ok: false, error: wireError(e) });
    }
  });
};
