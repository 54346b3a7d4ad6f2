/**
 * The replica card: a live local replica of the agent in this tab (`openStore({ replicaOf })`, memory storage) —
 * reads and searches answered here, writes applied here at once and pushed to the agent, its status (connected,
 * pending writes, agent seq, lag) shown live, and a switch that takes it offline and back. Open the demo in a second
 * tab: a write in one appears in the other as it reaches the agent.
 */
import { type EventFilter, openStore, type ReplicaMemoryStore, type ReplicaStatus } from 'edgemem';
import { ConnectionSwitch } from './connection-switch.ts';
import { busy, byId, errorText, h, preview, say } from './dom.ts';
import { devToken } from './remote-token.ts';

const NAMESPACE = ['demo'];

export function mountReplica(): void {
  const start = byId<HTMLButtonElement>('replica-start');
  const offline = byId<HTMLButtonElement>('replica-offline');
  const status = byId('replica-status');
  const state = byId('replica-state');
  const writeForm = byId<HTMLFormElement>('replica-write');
  const searchForm = byId<HTMLFormElement>('replica-search');
  const hits = byId<HTMLOListElement>('replica-hits');
  const list = byId<HTMLOListElement>('replica-list');
  const events = byId<HTMLOListElement>('replica-events');
  let replica: ReplicaMemoryStore | null = null;
  let down = false;
  const sw = new ConnectionSwitch();

  // The replica's network: cut by the switch (every request fails, the feed's socket drops).
  const cuttable: typeof fetch = (input, init) =>
    down ? Promise.reject(new TypeError('offline (simulated)')) : fetch(input, init);

  function enable(on: boolean): void {
    offline.disabled = !on;
    for (const b of [...writeForm.querySelectorAll('button'), ...searchForm.querySelectorAll('button')])
      b.disabled = !on;
  }

  function showStatus(s: ReplicaStatus): void {
    state.dataset.phase = s.phase;
    state.replaceChildren(
      ...(
        [
          ['phase', s.phase],
          ['connected', s.connected ? 'yes' : 'no'],
          ['pending writes', String(s.pending)],
          ['agent seq', String(s.agentSeq)],
          ['lag', s.lag === null ? '–' : String(s.lag)],
          ['conflicts', String(s.conflicts)],
        ] as const
      ).flatMap(([k, v]) => [h('dt', {}, k), h('dd', { 'data-field': k.replace(' ', '-') }, v)]),
    );
  }

  function note(text: string): void {
    events.prepend(h('li', {}, `${new Date().toLocaleTimeString()} — ${text}`));
    while (events.children.length > 20) events.lastElementChild?.remove();
  }

  async function refresh(): Promise<void> {
    if (!replica) return;
    const page = await replica.list({ prefix: NAMESPACE, limit: 50 });
    list.replaceChildren(
      ...page.items.map((m) =>
        h('li', { 'data-key': m.key }, h('strong', {}, m.key), ` v${m.version} — ${preview(m.value, 80)}`),
      ),
    );
  }

  async function open(): Promise<void> {
    const agent = byId<HTMLInputElement>('remote-agent').value.trim();
    let t = await devToken(agent);
    replica = await openStore({
      storage: 'memory',
      replicaOf: {
        url: location.origin,
        agent,
        token: async () => {
          if (Date.now() > t.expiresAt - 120_000) t = await devToken(agent);
          return t.token;
        },
        fetch: cuttable,
        WebSocket: sw.WebSocket,
        reconnect: { minDelayMs: 200, maxDelayMs: 2000 },
      },
    });
    replica.on('status', showStatus);
    replica.on('conflict', (c) => note(`conflict on ${c.key}: ${c.side} (versions ${c.lost.from}–${c.lost.to})`));
    replica.on('rejected', (r) => note(`the agent refused a ${r.op} of ${r.key ?? r.threadId}: ${r.error.code}`));
    const filter: EventFilter = { namespaces: [NAMESPACE] };
    await replica.subscribe(filter, () => void refresh());
    showStatus(replica.status());
    await replica.sync().catch(() => undefined);
    await refresh();
    start.textContent = 'Close replica';
    enable(true);
    document.body.dataset.replica = 'ready';
    say(status, `A replica of agent "${agent}" in this tab: reads never wait for the network.`, 'ok');
  }

  async function close(): Promise<void> {
    const r = replica;
    replica = null;
    enable(false);
    start.textContent = 'Start a replica';
    delete document.body.dataset.replica;
    await r?.close();
    say(status, 'No replica.');
  }

  start.addEventListener('click', () => {
    void busy(start, async () => {
      try {
        await (replica ? close() : open());
      } catch (e) {
        say(status, `No replica — ${errorText(e)}`, 'error');
      }
    });
  });

  offline.addEventListener('click', () => {
    down = !down;
    sw.online = !down;
    offline.setAttribute('aria-pressed', String(down));
    offline.textContent = down ? 'Go back online' : 'Go offline';
    note(down ? 'offline: writes are applied here and queued' : 'back online: pushing what was queued');
    if (!down) void replica?.sync().catch(() => undefined);
  });

  writeForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(writeForm);
    const key = String(data.get('key') ?? '').trim();
    const text = String(data.get('text') ?? '');
    void busy(writeForm.querySelector('button'), async () => {
      try {
        const ack = await (replica as ReplicaMemoryStore).put({ namespace: NAMESPACE, key, value: text, text });
        note(`wrote demo/${key} v${ack.version} here${down ? ' (queued)' : ''}`);
      } catch (e) {
        note(`not written — ${errorText(e)}`);
      }
    });
  });

  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const q = String(new FormData(searchForm).get('q') ?? '');
    void busy(searchForm.querySelector('button'), async () => {
      const t0 = performance.now();
      const found = await (replica as ReplicaMemoryStore).search({ text: q, mode: 'lexical', k: 5 });
      const ms = performance.now() - t0;
      hits.replaceChildren(
        ...found.map((x) => h('li', { 'data-key': x.key }, h('strong', {}, x.key), ` — ${preview(x.value, 80)}`)),
      );
      note(`searched "${q}" here: ${found.length} hits in ${ms.toFixed(2)} ms`);
    });
  });

  enable(false);
}
