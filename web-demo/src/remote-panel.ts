/**
 * The remote panel: `connect({ url, agent, token })` to the edgemem Worker (through this server's `/v1` proxy),
 * one `subscribe` for every event of the agent shown live, a switch that takes the connection offline and back
 * (the client resumes from the last seq it saw, so nothing committed meanwhile is missed), notify, and small
 * put/delete forms that write to the agent.
 */
import { connect, type MemoryStore, type Subscription } from 'edgemem';
import { ConnectionSwitch } from './connection-switch.ts';
import { busy, byId, errorText, say } from './dom.ts';
import { FeedView } from './remote-feed-view.ts';
import { devToken } from './remote-token.ts';

interface Session {
  agent: string;
  store: MemoryStore;
  sub: Subscription;
  sw: ConnectionSwitch;
  lastSeq: number | null;
}

export function mountRemote(): void {
  const connectForm = byId<HTMLFormElement>('remote-form');
  const agentInput = byId<HTMLInputElement>('remote-agent');
  const tokenInput = byId<HTMLInputElement>('remote-token');
  const mint = byId<HTMLButtonElement>('remote-mint');
  const connectButton = byId<HTMLButtonElement>('remote-connect');
  const status = byId('remote-status');
  const offline = byId<HTMLButtonElement>('remote-offline');
  const feed = new FeedView(byId<HTMLOListElement>('feed'));
  const notifyForm = byId<HTMLFormElement>('notify-form');
  const notifyStatus = byId('notify-status');
  const writeForm = byId<HTMLFormElement>('remote-write');
  const writeDelete = byId<HTMLButtonElement>('remote-delete');
  const writeStatus = byId('remote-write-status');
  const curl = byId('remote-curl');
  let session: Session | null = null;
  /** When the dev token in the field expires (ms), so it is renewed before; null for a pasted token. */
  let devExpiresAt: number | null = null;

  function setConnected(on: boolean): void {
    connectButton.textContent = on ? 'Disconnect' : 'Connect';
    offline.disabled = !on;
    for (const b of [...notifyForm.querySelectorAll('button'), ...writeForm.querySelectorAll('button')])
      b.disabled = !on;
    agentInput.readOnly = on;
  }

  async function mintToken(): Promise<void> {
    const t = await devToken(agentInput.value.trim());
    tokenInput.value = t.token;
    devExpiresAt = t.expiresAt;
    say(
      status,
      `Dev token for agent "${t.agent}" (${t.scopes.join(', ')}), valid until ${new Date(t.expiresAt).toLocaleTimeString()}.`,
      'ok',
    );
  }

  async function start(): Promise<void> {
    const agent = agentInput.value.trim();
    if (!tokenInput.value.trim()) await mintToken();
    const sw = new ConnectionSwitch();
    const store = await connect({
      url: location.origin,
      agent,
      // Called before each request and reconnect: a dev token is renewed two minutes before it expires.
      token: async () => {
        if (devExpiresAt !== null && Date.now() > devExpiresAt - 120_000) await mintToken();
        return tokenInput.value.trim();
      },
      WebSocket: sw.WebSocket,
      reconnect: { minDelayMs: 200, maxDelayMs: 2000 },
      onError: (e) => {
        feed.note(`The feed stopped: ${errorText(e)}. Connect again to resync.`);
        say(status, `Feed stopped — ${errorText(e)}`, 'error');
      },
    });
    const s: Session = { agent, store, sw, lastSeq: null, sub: undefined as unknown as Subscription };
    s.sub = await store.subscribe({}, (event) => {
      s.lastSeq = event.seq;
      feed.event(event);
    });
    // Read after subscribing: every event after this seq is pushed (some may already be in the feed).
    const head = await store.seq();
    session = s;
    setConnected(true);
    feed.note(`Connected to agent "${agent}" at seq ${head}; new events appear here as they commit.`);
    say(status, `Live: agent "${agent}", subscribed to every event.`, 'ok');
    curl.textContent =
      `curl -X PUT "${location.origin}/v1/agents/${agent}/memories/hello?ns=demo" \\\n` +
      `  -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\\n` +
      `  -d '{"value":"written from a terminal"}'`;
  }

  /** The connected agent's store; the forms are disabled while there is none, so this is a guard. */
  function connected(): Session['store'] {
    if (!session) throw new Error('not connected');
    return session.store;
  }

  async function stop(): Promise<void> {
    const s = session;
    session = null;
    setConnected(false);
    setOffline(false);
    if (!s) return;
    await s.sub.unsubscribe();
    await s.store.close();
    feed.note(`Disconnected from agent "${s.agent}".`);
    say(status, 'Not connected.');
  }

  function setOffline(on: boolean): void {
    offline.setAttribute('aria-pressed', String(on));
    offline.textContent = on ? 'Go back online' : 'Go offline';
    if (!session || session.sw.online === !on) return;
    session.sw.online = !on;
    const last = session.lastSeq === null ? 'the start' : `seq ${session.lastSeq}`;
    if (on) {
      feed.note(`Offline: the socket is closed. Events committed now are not lost — the client resumes after ${last}.`);
      say(status, 'Offline (simulated): writes to the agent keep committing on the Worker.', 'info');
    } else {
      feed.note(`Back online: resuming after ${last}; the Worker replays what was missed.`);
      say(status, `Live: agent "${session.agent}", resumed.`, 'ok');
    }
  }

  connectForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(connectButton, async () => {
      try {
        await (session ? stop() : start());
      } catch (e) {
        setConnected(false);
        say(status, `Not connected — ${errorText(e)}`, 'error');
      }
    });
  });

  mint.addEventListener('click', () => {
    void busy(mint, async () => {
      try {
        await mintToken();
      } catch (e) {
        say(status, errorText(e), 'error');
      }
    });
  });

  agentInput.addEventListener('change', () => {
    tokenInput.value = ''; // a token names one agent
    devExpiresAt = null;
  });
  tokenInput.addEventListener('input', () => {
    devExpiresAt = null; // a pasted token is used as it is
  });

  offline.addEventListener('click', () => setOffline(offline.getAttribute('aria-pressed') !== 'true'));
  byId<HTMLButtonElement>('feed-clear').addEventListener('click', () => feed.clear());

  notifyForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(notifyForm);
    const raw = String(data.get('payload') ?? '');
    let payload: unknown;
    try {
      payload = JSON.parse(raw);
    } catch {
      payload = raw; // plain text is sent as a JSON string
    }
    void busy(notifyForm.querySelector('button'), async () => {
      try {
        const seq = await connected().notify(String(data.get('channel') ?? ''), payload as never);
        say(notifyStatus, `Sent at seq ${seq}.`, 'ok');
      } catch (e) {
        say(notifyStatus, `Not sent — ${errorText(e)}`, 'error');
      }
    });
  });

  writeForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(writeForm);
    const key = String(data.get('key') ?? '').trim();
    const text = String(data.get('text') ?? '');
    void busy(writeForm.querySelector('button[type=submit]'), async () => {
      try {
        const ack = await connected().put({ namespace: ['demo'], key, value: text, text });
        say(writeStatus, `Put demo/${key} v${ack.version} at seq ${ack.seq}.`, 'ok');
      } catch (e) {
        say(writeStatus, `Not written — ${errorText(e)}`, 'error');
      }
    });
  });

  writeDelete.addEventListener('click', () => {
    const key = String(new FormData(writeForm).get('key') ?? '').trim();
    void busy(writeDelete, async () => {
      try {
        const seq = await connected().delete(['demo'], key);
        say(writeStatus, `Deleted demo/${key} at seq ${seq}.`, 'ok');
      } catch (e) {
        say(writeStatus, `Not deleted — ${errorText(e)}`, 'error');
      }
    });
  });

  setConnected(false);
  // Connect at once when this server can mint a dev token (npm start); otherwise wait for a pasted token.
  void busy(connectButton, start).catch((e: unknown) => {
    setConnected(false);
    say(
      status,
      `Not connected — ${errorText(e)}. Start the Worker (npm start) or paste a token, then Connect.`,
      'info',
    );
  });
}
