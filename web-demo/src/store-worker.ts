/**
 * The demo's store Web Worker (a module worker): the edgemem engine with its database in OPFS (synchronous
 * access handles exist only in dedicated workers) and its embedder — the built-in e5 by default, run here, never
 * on the page's thread, or an endpoint called from here — answering the page's requests (store-protocol.ts, over
 * edgemem/rpc) one at a time, in order. The store embeds the text of puts and searches itself. It survives reloads; one tab at a
 * time can hold it (a second gets CONFLICT).
 */
import { type Embedder, type MemoryStore, type OpenOptions, openaiEmbeddings, openStore } from 'edgemem';
import { callStore, EdgememError, type MessageEndpoint, type StoreMethod, serveRpc } from 'edgemem/rpc';
import { e5 } from 'edgemem-e5';
import { embed } from './embedder.ts';
import { type EmbedderChoice, type Opened, type OpenSettings, type Progress, STORE_METHODS } from './store-protocol.ts';

export const STORE_NAME = 'edgemem-demo';

const scope = self as unknown as MessageEndpoint;
const allowed = new Set<string>(STORE_METHODS);

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

/** Embedders loaded so far, by choice (the e5 weights load once per worker). */
const embedders = new Map<string, Promise<Embedder>>();

/** An endpoint as an Embedder: one probe call learns its vector length. */
async function endpointEmbedder(c: Extract<EmbedderChoice, { kind: 'endpoint' }>): Promise<Embedder> {
  const dims = (await embed(c, ['dimension probe']))[0]?.length ?? 0;
  return openaiEmbeddings({
    url: c.url,
    model: c.model,
    apiKey: c.key || undefined,
    dims,
    id: `endpoint:${c.model || c.url}`,
  });
}

function loadEmbedder(choice: EmbedderChoice): Promise<Embedder> | undefined {
  if (choice.kind === 'none') return undefined;
  const key = JSON.stringify(choice);
  let e = embedders.get(key);
  if (!e) {
    e =
      choice.kind === 'e5'
        ? e5({ onProgress: (progress) => scope.postMessage({ progress } satisfies Progress) })
        : endpointEmbedder(choice);
    e.catch(() => embedders.delete(key)); // a failed load is tried again on the next open
    embedders.set(key, e);
  }
  return e;
}

const message = (e: unknown) => String((e as { message?: unknown })?.message ?? e);

/**
 * Opens the store with the chosen embedder. When the embedder does not load, or the store was made for other
 * vectors (another length: DIMENSION_MISMATCH; another embedder recorded: INVALID_ARGUMENT), it opens the store
 * as it is, without one (lexical search), and says why; `recreate` tells the page that erasing it would help.
 */
async function open(settings: OpenSettings): Promise<Opened> {
  await store?.close();
  store = undefined;
  const options: OpenOptions = { storage: { opfs: STORE_NAME }, maxMemories: settings.maxMemories };
  let embedderError: string | null = null;
  let recreate = false;
  let embedder: Embedder | undefined;
  try {
    embedder = await loadEmbedder(settings.embedder);
  } catch (e) {
    embedderError = `the embedder did not load: ${message(e)}`;
  }
  if (embedder) {
    try {
      store = await openPatiently({ ...options, embedder });
      return {
        stats: await store.stats(),
        name: STORE_NAME,
        embedder: { id: embedder.id, dims: embedder.dims },
        embedderError: null,
        recreate: false,
      };
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code !== 'DIMENSION_MISMATCH' && code !== 'INVALID_ARGUMENT') throw e;
      recreate = true;
      embedderError = code === 'INVALID_ARGUMENT' ? message(e) : '';
    }
  }
  // dims 0: a new store without vectors, an existing one as it was made.
  store = await openPatiently({ ...options, dims: 0 });
  const stats = await store.stats();
  if (embedder && embedderError === '') {
    const has = stats.dims === 0 ? 'without vectors' : `for ${stats.dims}-dimension vectors`;
    embedderError = `this store was created ${has}; ${embedder.id} gives ${embedder.dims}`;
  }
  return { stats, name: STORE_NAME, embedder: null, embedderError, recreate };
}

/** Closes the store and deletes its OPFS folder, then opens a new one with `settings`. */
async function reset(settings: OpenSettings): Promise<Opened> {
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

serveRpc(scope, (method, args) => {
  // One request at a time (serveRpc's order): a reopen never interleaves with a call.
  if (method === 'open') return open(args[0] as OpenSettings);
  if (method === 'reset') return reset(args[0] as OpenSettings);
  if (!store) throw new EdgememError('INVALID_ARGUMENT', 'the store is not open');
  return callStore(store, allowed, method as StoreMethod, args as never);
});
