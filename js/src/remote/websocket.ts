/** The WebSocket class `subscribe` uses when `connect({ WebSocket })` names none: the global one, else the `ws` package. */
import { EdgememError } from '../api/errors.js';
import type { WebSocketConstructor } from './feed.js';

/** The global `WebSocket` (browsers, workerd, Node ≥ 22); on Node 20 `ws` (an optional peer dependency), imported on the first `subscribe`. */
export async function globalOrWsWebSocket(): Promise<WebSocketConstructor> {
  const global = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (global) return global;
  const name = 'ws'; // not a literal: bundlers and tsc leave the optional dependency alone
  try {
    const mod = (await import(name)) as { WebSocket?: WebSocketConstructor; default?: WebSocketConstructor };
    const ws = mod.WebSocket ?? mod.default;
    if (ws) return ws;
  } catch (e) {
    throw new EdgememError(
      'INVALID_ARGUMENT',
      'subscribe needs a WebSocket: Node < 22 has none built in — `npm install ws`, or pass connect({ WebSocket })',
      { cause: e },
    );
  }
  throw new EdgememError('INVALID_ARGUMENT', 'the ws package exports no WebSocket class');
}
