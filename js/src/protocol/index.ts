/**
 * The WebSocket protocol of the edgemem Worker's `/v1/agents/{agent}/ws` (`edgemem/protocol`): every message
 * both ways, as JSON text frames. The one definition both sides import — the Worker (workers/src) and the
 * remote client (remote-feed.ts). Also the base64 helpers for the HTTP bodies' `dataBase64` (base64.ts), and whole
 * checkpoints as a replica's pushes and pulls carry them (checkpoints.ts).
 *
 * A client sends `subscribe` (replacing any earlier subscription on that socket). The server replays the
 * retained events with seq > `since` that match the filter, oldest first, then sends `subscribed` with the
 * seq it is caught up to (every matching event up to that seq has been sent before it), then pushes each new matching event as it commits: one `event` per change, seqs
 * strictly increasing, no gap and no duplicate between replay and live. Without `since` there is no replay.
 * If `since` is older than the retained window the server answers `error` RESUME_GAP with `oldestSeq`
 * (resync: read the current state, then subscribe with `since` = the stats seq you read it at).
 * Subscriptions are kept in the socket's attachment, so they survive the Durable Object's hibernation.
 */
import type { ChangeEvent, EventFilter } from '../api/types.js';

export { fromBase64, toBase64 } from '../api/base64.js';
export { checkpointToWire, storeWireCheckpoint, type WireCheckpoint } from './checkpoints.js';
export { type PulledMemory, pulledOf } from './pulled.js';
export type { ChangeEvent, EventFilter };

/** Client → server. */
export type ClientMessage =
  | { type: 'subscribe'; filter?: EventFilter; since?: number }
  | { type: 'unsubscribe' }
  | { type: 'ping' };

/** Server → client. `seq` is the event's seq, or for other messages the agent's latest committed seq. */
export type ServerMessage =
  | { type: 'event'; seq: number; event: ChangeEvent }
  | { type: 'subscribed'; seq: number }
  | { type: 'unsubscribed'; seq: number }
  | { type: 'pong'; seq: number }
  | { type: 'error'; seq: number; error: { code: string; message: string; oldestSeq?: number } };
