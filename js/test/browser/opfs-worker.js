// @ts-check
// The browser tests' Web Worker (module): imports the package's browser entry and runs one step on an OPFS
// store. (Loaded by a `node --test` that scans a whole test/ folder, it only sets a handler.)

/**
 * @typedef {{ namespace: string[], key: string, value: unknown, text?: string, embedding?: number[] }} Input
 * @typedef {{ entry: string, step: 'write' | 'read' | 'crash', name: string, memories: Input[] }} Message
 */

/** What the test compares before and after the reload. */
async function observe(/** @type {any} */ store, /** @type {Input[]} */ memories) {
  const got = [];
  for (const m of memories) got.push(await store.get(m.namespace, m.key));
  const keys = (/** @type {{ key: string }[]} */ hits) => hits.map((h) => h.key);
  const stats = await store.stats();
  return {
    got,
    lexical: keys(await store.search({ text: 'oat milk', k: 10 })),
    bulk: keys(await store.search({ text: 'bulk note 123', k: 1 })),
    vector: keys(await store.search({ vector: [0, 0, 1], k: 1, namespace: ['user'] })),
    memories: stats.memories,
    seq: stats.seq,
  };
}

/** 300 more memories, so the database spans many 8 KiB chunks. */
function bulk() {
  return Array.from({ length: 300 }, (_, i) => ({
    namespace: ['bulk'],
    key: `b${i}`,
    value: { i, pad: 'x'.repeat(200) },
    text: `bulk note ${i}`,
  }));
}

/** An error as plain data (it crosses postMessage). */
function described(/** @type {any} */ e) {
  return { name: e?.name, code: e?.code, message: String(e?.message ?? e) };
}

const steps = {
  /** Creates the store, checks a second open is refused and that close releases it. */
  async write(/** @type {any} */ edgemem, /** @type {Message} */ { name, memories }) {
    const store = await edgemem.openStore({ dims: 3, storage: { opfs: name } });
    for (const m of memories) await store.put(m);
    await store.putBatch(bulk());
    const before = await observe(store, memories);
    let second = null;
    try {
      await edgemem.openStore({ dims: 3, storage: { opfs: name } });
    } catch (e) {
      second = { ...described(e), isEdgemem: e instanceof edgemem.EdgememError };
    }
    await store.close();
    const again = await edgemem.openStore({ dims: 3, storage: { opfs: name } });
    const reopened = (await again.stats()).memories;
    await again.close();
    return { before, second, reopened };
  },
  /** Writes and never closes: the page ends the worker after the reply, the store's redo log not checkpointed. */
  async crash(/** @type {any} */ edgemem, /** @type {Message} */ { name, memories }) {
    const store = await edgemem.openStore({ dims: 3, storage: { opfs: name } });
    for (const m of memories) await store.put(m);
    await store.putBatch(bulk());
    return { before: await observe(store, memories) };
  },
  /** Reopens the store (after a page reload) and observes it. */
  async read(/** @type {any} */ edgemem, /** @type {Message} */ { name, memories }) {
    const store = await edgemem.openStore({ dims: 3, storage: { opfs: name } });
    const after = await observe(store, memories);
    await store.close();
    return { after };
  },
};

globalThis.onmessage = async (/** @type {MessageEvent<Message>} */ event) => {
  try {
    const edgemem = await import(event.data.entry);
    postMessage({ ok: true, result: await steps[event.data.step](edgemem, event.data) });
  } catch (e) {
    postMessage({ ok: false, error: described(e) });
  }
};
