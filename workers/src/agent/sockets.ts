/**
 * The agent's WebSockets (hibernation API): the upgrade the Worker forwards (already authenticated, with the token's
 * expiry), and each client message — subscribe, unsubscribe, ping — answered on the socket. The subscriptions
 * themselves and their pushes are live-feed.ts's; a socket whose token expired is closed (4401).
 */
import type { MemoryStore } from 'edgemem';
import { toWire } from '../http-errors.js';
import { LIMITS } from '../limits.js';
import {
  attachmentOf,
  closeIfExpired,
  type LiveFeed,
  type SocketAttachment,
  send,
  TOKEN_EXPIRY_HEADER,
} from '../live-feed.js';
import { parseClientMessage } from '../ws-messages.js';
import type { AgentStore } from './open.js';

export class Sockets {
  readonly #ctx: DurableObjectState;
  readonly #store: AgentStore;
  readonly #feed: LiveFeed;

  constructor(ctx: DurableObjectState, store: AgentStore, feed: LiveFeed) {
    this.#ctx = ctx;
    this.#store = store;
    this.#feed = feed;
  }

  /** A WebSocket upgrade: the socket accepted (hibernatable) with its token's expiry; anything else is refused. */
  accept(request: Request): Response {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') {
      return Response.json(
        { error: { code: 'INVALID_ARGUMENT', message: 'expected a WebSocket upgrade' } },
        { status: 400 },
      );
    }
    const pair = new WebSocketPair();
    const server = pair[1];
    this.#ctx.acceptWebSocket(server);
    const exp = Number(request.headers.get(TOKEN_EXPIRY_HEADER) || NaN);
    server.serializeAttachment({
      filter: null,
      expiresAt: Number.isFinite(exp) ? exp : null,
    } satisfies SocketAttachment);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  /** A client message: validated within the message limit, then answered on the socket. */
  async message(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    if (closeIfExpired(ws, attachmentOf(ws).expiresAt)) {
      await this.#feed.unsubscribe(ws);
      return;
    }
    // The seq a reply carries. An object woken from hibernation by a message has no open store: a ping, a bad
    // message or an unsubscribe is answered without opening it (a cold open per heartbeat would defeat
    // hibernation), with the last seq this socket was told about — everything before it was sent.
    const told = () => attachmentOf(ws).sent ?? 0;
    const seq = async () => {
      const opened = this.#store.opened;
      return opened ? opened.then((s) => s.seq()).catch(told) : told();
    };
    // UTF-8 takes at most 3 bytes per UTF-16 unit: only long strings are encoded to count their bytes.
    const size =
      typeof message !== 'string'
        ? message.byteLength
        : message.length * 3 <= LIMITS.wsMessageBytes
          ? message.length
          : new TextEncoder().encode(message).byteLength;
    if (size > LIMITS.wsMessageBytes) {
      send(ws, {
        type: 'error',
        seq: await seq(),
        error: { code: 'PAYLOAD_TOO_LARGE', message: `messages are limited to ${LIMITS.wsMessageBytes} bytes` },
      });
      return;
    }
    const parsed = parseClientMessage(message);
    if (!parsed.ok) {
      send(ws, { type: 'error', seq: await seq(), error: parsed.error });
      return;
    }
    const msg = parsed.value;
    switch (msg.type) {
      case 'subscribe': {
        let store: MemoryStore;
        try {
          store = await this.#store.open();
        } catch (e) {
          send(ws, { type: 'error', seq: told(), error: toWire(e) });
          return;
        }
        await this.#feed.subscribe(store, ws, msg.filter ?? {}, msg.since);
        return;
      }
      case 'unsubscribe':
        await this.#feed.unsubscribe(ws);
        send(ws, { type: 'unsubscribed', seq: await seq() });
        return;
      case 'ping':
        send(ws, { type: 'pong', seq: await seq() });
        return;
    }
  }

  /** A socket the client closed: its subscription goes, and the close is answered. */
  async close(ws: WebSocket, code: number, reason: string): Promise<void> {
    await this.#feed.unsubscribe(ws);
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // already closed
    }
  }

  /** A socket that failed: its subscription goes. */
  async error(ws: WebSocket): Promise<void> {
    await this.#feed.unsubscribe(ws);
  }
}
