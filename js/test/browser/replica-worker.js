// @ts-check
// The replica tests' Web Worker (module): holds this tab's replica of an agent (OPFS, shared between tabs by the
// package) and runs the page's commands on it. (Loaded by a `node --test` that scans a whole test/ folder, it only
// sets a handler.)

/** @type {any} */
let replica = null;
/** @type {string[]} */
const log = [];
/** While true, this tab's requests fail as a cut network's would. */
let down = false;
/** @type {typeof fetch} */
const cuttable = (input, init) => (down ? Promise.reject(new TypeError('offline')) : fetch(input, init));

/** @type {Record<string, (m: any) => Promise<unknown>>} */
const commands = {
  async open(m) {
    const edgemem = await import(m.entry);
    replica = await edgemem.openStore({
      storage: { opfs: m.name },
      replicaOf: {
        url: m.url,
        agent: m.agent,
        token: m.token,
        live: false,
        pollMs: 100,
        snapshotChunkBytes: 65536,
        fetch: cuttable,
      },
    });
    replica.on('sync', (/** @type {any} */ e) => log.push(`${e.kind}:${e.count}`));
    return { owner: replica.owner };
  },
  owner: async () => replica.owner,
  put: async (m) => (await replica.put(m.memory)).version,
  get: async (m) => (await replica.get(m.namespace, m.key))?.value ?? null,
  count: async () => (await replica.stats()).memories,
  status: async () => replica.status(),
  sync: async () => replica.sync(),
  log: async () => log,
  network: async (m) => {
    down = !m.up;
  },
};

globalThis.onmessage = async (/** @type {MessageEvent<any>} */ event) => {
  const m = event.data;
  try {
    postMessage({ id: m.id, ok: true, value: await commands[m.cmd]?.(m) });
  } catch (e) {
    const err = /** @type {any} */ (e);
    postMessage({ id: m.id, ok: false, error: { code: err?.code, message: String(err?.message ?? err) } });
  }
};
