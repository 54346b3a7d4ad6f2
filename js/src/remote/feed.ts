/**
 * `subscribe` of the remote client: one WebSocket per subscription to the Worker's `/v1/agents/{agent}/ws`
 * (messages in protocol.ts), reconnected with exponential backoff when it drops, resuming with `since` = the
 * last seq it saw — the server replays what was missed, so the callback sees every matching event once, in
 * seq order, with no gap and no duplicate across a reconnect.
 *
 * A subscription ends (and `onError` of `connect` gets an `EdgememError`) when it cannot resume without
 * losing events — RESUME_GAP, with `oldestSeq`: the events since the last one seen were pruned; resync from
 * the current state and subscribe again — or when the token is refused (UNAUTHORIZED / FORBIDDEN). Any other
 * failure (network, a restarting Worker) is retried until `unsubscribe()`.
 */

import { argument, codeOf, EdgememError, type ErrorCode } from '../api/errors.js';
import type { ChangeEvent, EventFilter, Subscription } from '../api/types.js';
import type { ClientMessage, ServerMessage } from '../protocol/index.js';
import { apiUrl, type HttpClient } from './http.js';
import { toEvent } from './wire.js';

/** What the client needs of a WebSocket: the WHATWG API, which browsers, workerd, Node ≥ 22 and `ws` provide. */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(
    type: 'open' | 'message' | 'close' | 'error',
    listener: (event: { data?: unknown; code?: number }) => void,
  ): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface ReconnectOptions {
  /** First retry delay (default 100 ms); it doubles on each failed attempt, with jitter. */
  minDelayMs?: number;
  /** Longest delay between attempts (default 5000 ms). */
  maxDelayMs?: number;
  /** A ping every this many ms; a socket silent for two intervals is dropped and reconnected (default 30,000; 0: off). */
  heartbeatMs?: number;
}

export interface FeedContext {
  http: HttpClient;
  /** `/v1/agents/{agent}` (encoded). */
  agentPath: string;
  webSocket: () => Promise<WebSocketConstructor>;
  reconnect: ReconnectOptions;
  onError: (error: EdgememError) => void;
}

const OPEN = 1;

function wsUrl(ctx: FeedContext, token: string): string {
  return apiUrl(ctx.http.base, `${ctx.agentPath}/ws`, { token }).replace(/^http/i, 'ws');
}

function text(data: unknown): string {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return new TextDecoder().decode(data as ArrayBuffer);
  return String(data);
}

function wireError(e: { code: string; message: string; oldestSeq?: number }): EdgememError {
  return new EdgememError(
    codeOf(e.code),
    e.message,
    typeof e.oldestSeq === 'number' ? { oldestSeq: e.oldestSeq } : undefined,
  );
}

/** Errors retrying cannot fix. */
const FATAL = new Set<ErrorCode>(['RESUME_GAP', 'UNAUTHORIZED', 'FORBIDDEN', 'INVALID_ARGUMENT', 'PAYLOAD_TOO_LARGE']);

export class RemoteSubscription implements Subscription {
  readonly #ctx: FeedContext;
  readonly #filter: EventFilter;
  readonly #callback: (event: ChangeEvent) => void;
  /** The seq the stream is caught up to: the next connection resumes with `since` = this. */
  #last: number | undefined;
  #ws: WebSocketLike | undefined;
  #ended = false;
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #heard = 0;
  readonly #onEnd: (sub: RemoteSubscription) => void;

  private constructor(
    ctx: FeedContext,
    filter: EventFilter,
    callback: (event: ChangeEvent) => void,
    onEnd: (sub: RemoteSubscription) => void,
  ) {
    this.#ctx = ctx;
    this.#filter = filter;
    this.#callback = callback;
    this.#onEnd = onEnd;
  }

  /** Subscribes; resolves once the server has confirmed (events committed after that are delivered). */
  static async open(
    ctx: FeedContext,
    filter: EventFilter,
    callback: (event: ChangeEvent) => void,
    onEnd: (sub: RemoteSubscription) => void,
  ): Promise<RemoteSubscription> {
    // A filter JSON cannot carry (a cycle, nested too deep) fails here, not later inside a socket listener.
    argument('subscribe filter', () => JSON.stringify(filter));
    const sub = new RemoteSubscription(ctx, filter, callback, onEnd);
    try {
      await sub.#connect();
    } catch (e) {
      sub.#end();
      if (e instanceof EdgememError) throw e;
      throw new EdgememError('INTERNAL', `cannot open a WebSocket: ${e instanceof Error ? e.message : String(e)}`, {
        cause: e,
      });
    }
    return sub;
  }

  /** The seq this subscription has seen everything up to (what a reconnect resumes from). */
  get lastSeq(): number | undefined {
    return this.#last;
  }

  async unsubscribe(): Promise<void> {
    this.#end();
  }

  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    clearTimeout(this.#timer);
    clearInterval(this.#heartbeat);
    const ws = this.#ws;
    this.#ws = undefined;
    try {
      ws?.close(1000, 'unsubscribe');
    } catch {
      // already closed
    }
    this.#onEnd(this);
  }

  /** Ends the subscription because it cannot continue without losing events or access. */
  #fail(error: EdgememError): void {
    if (this.#ended) return;
    this.#end();
    this.#ctx.onError(error);
  }

  /** One connection: resolves on `subscribed`, rejects if the socket fails or errors before that. */
  async #connect(): Promise<void> {
    const Ctor = await this.#ctx.webSocket();
    const token = await this.#ctx.http.token();
    if (this.#ended) return;
    const ws = new Ctor(wsUrl(this.#ctx, token));
    this.#ws = ws;
    await new Promise<void>((resolve, reject) => {
      let subscribed = false;
      ws.addEventListener('open', () => {
        const msg: ClientMessage =
          this.#last === undefined
            ? { type: 'subscribe', filter: this.#filter }
            : { type: 'subscribe', filter: this.#filter, since: this.#last };
        ws.send(JSON.stringify(msg));
      });
      ws.addEventListener('message', (ev) => {
        if (this.#ws !== ws || this.#ended) return;
        this.#heard = Date.now();
        let msg: ServerMessage;
        try {
          msg = JSON.parse(text(ev.data)) as ServerMessage;
        } catch {
          return;
        }
        if (msg.type === 'event') {
          this.#deliver(msg.event);
        } else if (msg.type === 'subscribed') {
          // Everything matching up to msg.seq has been sent before this message (protocol.ts).
          this.#last = Math.max(this.#last ?? 0, msg.seq);
          this.#attempt = 0;
          subscribed = true;
          this.#startHeartbeat(ws);
          resolve();
        } else if (msg.type === 'pong') {
          // The object pushes each matching event as it commits, before it answers a later ping: nothing
          // matching up to msg.seq is still to come, so a quiet filtered subscription's resume point advances.
          if (subscribed) this.#last = Math.max(this.#last ?? 0, msg.seq);
        } else if (msg.type === 'error') {
          const err = wireError(msg.error);
          if (!subscribed) {
            ws.close(1000, 'subscribe failed');
            reject(err);
          } else if (FATAL.has(err.code)) {
            this.#fail(err);
          }
        }
      });
      ws.addEventListener('close', () => {
        const current = this.#ws === ws;
        if (current) {
          this.#ws = undefined;
          clearInterval(this.#heartbeat);
        }
        if (!subscribed) {
          // null: diagnosed below
          reject(
            this.#ended ? new EdgememError('INVALID_ARGUMENT', 'the subscription was ended while connecting') : null,
          );
          return;
        }
        if (current) this.#retry();
      });
      ws.addEventListener('error', () => {
        // A 'close' follows; nothing to do here.
      });
    }).catch(async (e: EdgememError | null) => {
      throw e ?? (await this.#diagnose());
    });
  }

  /** Why a socket closed before subscribing: the route's token check over plain HTTP, else INTERNAL. */
  async #diagnose(): Promise<EdgememError> {
    // Without an Upgrade header a request whose token is accepted gets INVALID_ARGUMENT ("needs a WebSocket upgrade").
    const e = await this.#ctx.http.request('GET', `${this.#ctx.agentPath}/ws`).then(
      () => undefined,
      (err: unknown) => err,
    );
    if (e instanceof EdgememError && (e.code === 'UNAUTHORIZED' || e.code === 'FORBIDDEN')) return e;
    return new EdgememError(
      'INTERNAL',
      `the WebSocket to ${this.#ctx.http.base} closed before the subscription was confirmed`,
    );
  }

  /** Gives up on a socket that stopped answering and reconnects. */
  #drop(ws: WebSocketLike): void {
    if (this.#ws !== ws) return;
    this.#ws = undefined;
    clearInterval(this.#heartbeat);
    try {
      ws.close(4000, 'no answer to ping');
    } catch {
      // already closed
    }
    this.#retry();
  }

  #deliver(raw: ChangeEvent): void {
    let event: ChangeEvent;
    try {
      event = toEvent(raw);
    } catch (e) {
      this.#fail(e instanceof EdgememError ? e : new EdgememError('INTERNAL', String(e)));
      return;
    }
    if (this.#last !== undefined && event.seq <= this.#last) return; // already delivered before a reconnect
    this.#last = event.seq;
    try {
      this.#callback(event);
    } catch (e) {
      console.error('edgemem: a subscribe callback threw', e);
    }
  }

  #retry(): void {
    if (this.#ended) return;
    const { minDelayMs = 100, maxDelayMs = 5000 } = this.#ctx.reconnect;
    const delay = Math.min(maxDelayMs, minDelayMs * 2 ** Math.min(this.#attempt, 20)) * (0.5 + Math.random() / 2);
    this.#attempt++;
    this.#timer = setTimeout(() => {
      this.#connect().catch((e: unknown) => {
        if (this.#ended) return;
        if (e instanceof EdgememError && FATAL.has(e.code)) this.#fail(e);
        else this.#retry();
      });
    }, delay);
  }

  #startHeartbeat(ws: WebSocketLike): void {
    clearInterval(this.#heartbeat);
    const every = this.#ctx.reconnect.heartbeatMs ?? 30_000;
    if (!every) return;
    this.#heartbeat = setInterval(() => {
      if (this.#ws !== ws || ws.readyState !== OPEN) return;
      if (Date.now() - this.#heard > 2 * every) {
        this.#drop(ws);
        return;
      }
      ws.send(JSON.stringify({ type: 'ping' } satisfies ClientMessage));
    }, every);
    (this.#heartbeat as { unref?: () => void }).unref?.();
  }
}
