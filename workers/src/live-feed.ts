/**
 * WebSocket subscribers of one agent's change feed, inside its Durable Object. Each socket with a
 * subscription has its own in-process engine subscription (so the engine applies the filter); the filter
 * is also kept in the socket's attachment, which outlives hibernation: when the object wakes and opens its
 * store again, `restore` re-creates the subscriptions, so writes after the wake still push. A socket opened
 * with a scoped token is closed (code 4401) once the token expires, at its next message or push; the client
 * reconnects with a fresh token.
 */
import type { ChangeEvent, EventFilter, MemoryStore, Subscription } from 'edgemem';
import type { ServerMessage } from 'edgemem/protocol';
import { toWire } from './http-errors.js';
import { LIMITS } from './limits.js';

/**
 * What a socket carries through hibernation: its filter, when its token expires (ms; null: never), and the seq
 * its last `subscribed` message carried (what a reply made without opening the store can say).
 */
export interface SocketAttachment {
  filter: EventFilter | null;
  expiresAt: number | null;
  sent?: number | null;
}

/** Header on the upgrade the Worker forwards to the object: the token's expiry in ms, or empty (admin). */
export const TOKEN_EXPIRY_HEADER = 'x-edgemem-token-expires-at';

/** Close code for a socket whose token expired: clients reconnect with a fresh token. */
export const TOKEN_EXPIRED_CLOSE = 4401;

export function attachmentOf(ws: WebSocket): SocketAttachment {
  const a = ws.deserializeAttachment() as Partial<SocketAttachment> | null;
  return { filter: a?.filter ?? null, expiresAt: a?.expiresAt ?? null, sent: a?.sent ?? null };
}

/** Whether the socket's token has expired; if so the socket is closed (code 4401). */
export function closeIfExpired(ws: WebSocket, expiresAt: number | null): boolean {
  if (expiresAt === null || Date.now() < expiresAt) return false;
  try {
    ws.close(TOKEN_EXPIRED_CLOSE, 'token expired');
  } catch {
    // already closing
  }
  return true;
}

export function send(ws: WebSocket, msg: ServerMessage): void {
  try {
    ws.send(JSON.stringify(msg));
  } catch {
    // The socket is closing; its close handler removes the subscription.
  }
}

export class LiveFeed {
  readonly #ctx: DurableObjectState;
  readonly #subs = new Map<WebSocket, Subscription>();

  constructor(ctx: DurableObjectState) {
    this.#ctx = ctx;
  }

  /** Re-creates the subscription of every socket whose attachment has one (after a wake). */
  async restore(store: MemoryStore): Promise<void> {
    for (const ws of this.#ctx.getWebSockets()) {
      const att = attachmentOf(ws);
      if (att.filter && !this.#subs.has(ws)) {
        if (closeIfExpired(ws, att.expiresAt)) continue;
        const cursor: Cursor = { last: -1, replaying: false, held: [], expiresAt: att.expiresAt };
        this.#subs.set(ws, await live(store, ws, att.filter, cursor));
      }
    }
  }

  /**
   * Subscribes `ws` (replacing its subscription): replays events after `since` (if given), sends
   * `subscribed`, then goes live. Events committed while replaying are held and sent after it, deduplicated
   * by seq. RESUME_GAP (and any other error, a filter the engine refuses included) is sent as an `error` message
   * and leaves no subscription.
   */
  async subscribe(store: MemoryStore, ws: WebSocket, filter: EventFilter, since: number | undefined): Promise<void> {
    await this.unsubscribe(ws);
    const { expiresAt } = attachmentOf(ws);
    const cursor: Cursor = { last: since ?? -1, replaying: true, held: [], expiresAt };
    let sub: Subscription;
    try {
      sub = await live(store, ws, filter, cursor);
    } catch (e) {
      // A filter the engine refuses (e.g. a channel with a lone surrogate) is answered, not left hanging.
      send(ws, { type: 'error', seq: await headSeq(store), error: toWire(e) });
      return;
    }
    let sent = 0;
    try {
      if (since !== undefined) {
        for (;;) {
          // Pages bounded by count and size (about 4 MiB), so a replay of big events never holds them all.
          const page = await store.changesPage(cursor.last, { filter, limit: LIMITS.pageItems });
          for (const event of page.events) push(ws, cursor, event);
          if (!page.more) break;
        }
      }
      const head = await store.seq();
      // Events committed while replaying (all ≤ head) go out before `subscribed`, so that its seq means
      // "every matching event up to here has been sent" — what a client resumes from after a reconnect.
      cursor.replaying = false;
      for (const event of cursor.held.splice(0)) push(ws, cursor, event);
      sent = Math.max(head, cursor.last);
      send(ws, { type: 'subscribed', seq: sent });
    } catch (e) {
      await sub.unsubscribe();
      send(ws, { type: 'error', seq: await headSeq(store), error: toWire(e) });
      return;
    }
    ws.serializeAttachment({ filter, expiresAt, sent } satisfies SocketAttachment);
    this.#subs.set(ws, sub);
  }

  /** Drops the socket's subscription (on `unsubscribe` and on close). */
  async unsubscribe(ws: WebSocket): Promise<void> {
    const sub = this.#subs.get(ws);
    this.#subs.delete(ws);
    if (ws.readyState === WebSocket.OPEN) {
      const { expiresAt, sent } = attachmentOf(ws);
      ws.serializeAttachment({ filter: null, expiresAt, sent } satisfies SocketAttachment);
    }
    await sub?.unsubscribe();
  }

  /** Forgets every in-process subscription, as an eviction does (the attachments stay). */
  forget(): void {
    this.#subs.clear();
  }

  /** How many sockets have a live in-process subscription. */
  get size(): number {
    return this.#subs.size;
  }
}

/** Where a socket's stream stands: the last seq sent, events held back while replaying, the token's expiry. */
interface Cursor {
  last: number;
  replaying: boolean;
  held: ChangeEvent[];
  expiresAt: number | null;
}

/** Sends `event` unless the socket already has it (seqs only go up) or its token has expired (then it closes). */
function push(ws: WebSocket, cursor: Cursor, event: ChangeEvent): void {
  if (event.seq <= cursor.last) return;
  if (closeIfExpired(ws, cursor.expiresAt)) return;
  cursor.last = event.seq;
  send(ws, { type: 'event', seq: event.seq, event });
}

function live(store: MemoryStore, ws: WebSocket, filter: EventFilter, cursor: Cursor): Promise<Subscription> {
  return store.subscribe(filter, (event) => {
    if (cursor.replaying) cursor.held.push(event);
    else push(ws, cursor, event);
  });
}

async function headSeq(store: MemoryStore): Promise<number> {
  try {
    return await store.seq();
  } catch {
    return 0;
  }
}
