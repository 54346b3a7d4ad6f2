/** A test WebSocket client: opens `/v1/agents/{agent}/ws` through the Worker and waits for messages with a timeout. */
import { exports } from 'cloudflare:workers';
import type { ClientMessage, ServerMessage } from 'edgemem/protocol';
import { ADMIN, BASE } from './helpers';

export class TestSocket {
  readonly messages: ServerMessage[] = [];
  #read = 0;
  #waiter: (() => void) | undefined;

  /** The close code, once the server closed the socket. */
  closedWith: number | undefined;

  private constructor(readonly ws: WebSocket) {
    ws.addEventListener('close', (e) => {
      this.closedWith = e.code;
      this.#waiter?.();
    });
    ws.addEventListener('message', (e) => {
      this.messages.push(JSON.parse(e.data as string) as ServerMessage);
      this.#waiter?.();
    });
  }

  static async open(agent: string, token = ADMIN): Promise<TestSocket> {
    const res = await exports.default.fetch(
      new Request(`${BASE}/v1/agents/${agent}/ws`, {
        headers: {
          upgrade: 'websocket',
          connection: 'Upgrade',
          'sec-websocket-version': '13',
          'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
          authorization: `Bearer ${token}`,
        },
      }),
    );
    if (res.status !== 101 || !res.webSocket) throw new Error(`upgrade failed: ${res.status} ${await res.text()}`);
    res.webSocket.accept();
    return new TestSocket(res.webSocket);
  }

  send(msg: ClientMessage): void {
    this.ws.send(JSON.stringify(msg));
  }

  /** The next unread message (waits up to `ms`). */
  async next(ms = 10_000): Promise<ServerMessage> {
    const deadline = Date.now() + ms;
    while (this.#read >= this.messages.length) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no message within ${ms} ms (got ${JSON.stringify(this.messages)})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    return this.messages[this.#read++]!;
  }

  /** Reads messages until one of `type` (returns it and the events before it). */
  async until(type: ServerMessage['type'], ms = 10_000): Promise<{ msg: ServerMessage; before: ServerMessage[] }> {
    const before: ServerMessage[] = [];
    for (;;) {
      const m = await this.next(ms);
      if (m.type === type) return { msg: m, before };
      before.push(m);
    }
  }

  /** Asserts nothing more arrives within `ms`. */
  async quiet(ms = 150): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    if (this.#read < this.messages.length)
      throw new Error(`unexpected messages: ${JSON.stringify(this.messages.slice(this.#read))}`);
  }

  /** Waits up to `ms` for the server to close the socket; its close code. */
  async closed(ms = 10_000): Promise<number> {
    const deadline = Date.now() + ms;
    while (this.closedWith === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    if (this.closedWith === undefined) throw new Error(`not closed within ${ms} ms`);
    return this.closedWith;
  }

  close(): void {
    this.ws.close(1000, 'done');
  }
}
