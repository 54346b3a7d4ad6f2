/**
 * A WebSocket class for `connect({ WebSocket })` with an off switch, so the demo can show a disconnect:
 * switching off closes the open sockets (the client sees a dropped connection and starts reconnecting) and
 * holds every new one unopened; switching on opens the held ones, and the client resumes from the last seq it
 * saw — the Worker replays what was committed meanwhile.
 */
import type { WebSocketConstructor, WebSocketLike } from 'edgemem';

type Listener = (event: { data?: unknown; code?: number }) => void;
type Kind = 'open' | 'message' | 'close' | 'error';

export class ConnectionSwitch {
  #online = true;
  readonly #sockets = new Set<SwitchedSocket>();
  /** Pass this to `connect`. */
  readonly WebSocket: WebSocketConstructor;

  constructor() {
    const sw = this;
    this.WebSocket = class extends SwitchedSocket {
      constructor(url: string) {
        super(url, sw.#sockets);
        if (sw.#online) this.start();
      }
    };
  }

  get online(): boolean {
    return this.#online;
  }

  set online(on: boolean) {
    this.#online = on;
    for (const s of [...this.#sockets]) {
      if (on) s.start();
      else s.drop();
    }
  }
}

class SwitchedSocket implements WebSocketLike {
  readonly #url: string;
  readonly #all: Set<SwitchedSocket>;
  readonly #listeners = new Map<Kind, Listener[]>();
  #real: WebSocket | undefined;
  #closed = false;

  constructor(url: string, all: Set<SwitchedSocket>) {
    this.#url = url;
    this.#all = all;
    all.add(this);
  }

  get readyState(): number {
    if (this.#closed) return 3;
    return this.#real?.readyState ?? 0;
  }

  /** Opens the real socket (once; a held socket waits for this). */
  start(): void {
    if (this.#real || this.#closed) return;
    const ws = new WebSocket(this.#url);
    this.#real = ws;
    for (const kind of ['open', 'message', 'error'] as const)
      ws.addEventListener(kind, (e) => this.#emit(kind, { data: (e as MessageEvent).data }));
    ws.addEventListener('close', (e) => this.#finish(e.code));
  }

  /** Closes the real socket as a network drop would (the client reconnects). */
  drop(): void {
    const ws = this.#real;
    if (!ws || this.#closed) return;
    // Closing a socket that is still connecting makes Chromium log an error: close it once it opens.
    if (ws.readyState === WebSocket.CONNECTING) ws.addEventListener('open', () => ws.close(4001, 'demo: offline'));
    else ws.close(4001, 'demo: offline');
  }

  send(data: string): void {
    this.#real?.send(data);
  }

  close(code?: number, reason?: string): void {
    if (this.#real) this.#real.close(code, reason);
    else queueMicrotask(() => this.#finish(code ?? 1000));
  }

  addEventListener(type: Kind, listener: Listener): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }

  #finish(code: number): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#all.delete(this);
    this.#emit('close', { code });
  }

  #emit(kind: Kind, event: { data?: unknown; code?: number }): void {
    for (const l of this.#listeners.get(kind) ?? []) l(event);
  }
}
