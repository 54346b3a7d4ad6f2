/**
 * The MCP resources: `edgemem://stats` (the store's counters), `edgemem://changes` (the latest changes) and
 * `memory://knowledge-graph` (the whole graph, as `@modelcontextprotocol/server-memory` serves it). The last two
 * can be subscribed to (`resources/subscribe`): the client then gets `notifications/resources/updated` whenever
 * memories change — any memory, or the graph's — whoever wrote them, as the store's change feed (`subscribe`)
 * reports them. Bursts of changes (a batch) send one notification. Closing the server ends its subscriptions.
 */

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import {
  ErrorCode,
  McpError,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ChangeEvent, EventFilter, EventKind, MemoryStore, Subscription } from '../api/types.js';
import type { KnowledgeGraph } from './graph.js';
import { eventView } from './views.js';

export const STATS_URI = 'edgemem://stats';
export const CHANGES_URI = 'edgemem://changes';
export const GRAPH_URI = 'memory://knowledge-graph';

/** How many of the latest changes `edgemem://changes` shows. */
const RECENT = 100;
const MEMORY_KINDS: EventKind[] = ['put', 'delete', 'expire', 'evict', 'supersede'];

/** Registers the resources and (unless `subscriptions` is false) the subscribe/unsubscribe handlers on `server` (before it connects). */
export function registerResources(
  server: McpServer,
  store: MemoryStore,
  graph: KnowledgeGraph,
  options: { subscriptions: boolean },
): void {
  server.registerResource(
    'stats',
    STATS_URI,
    {
      title: 'Store statistics',
      description: "The memory store's counters: latest seq, memories, bytes, versions, events, caps, index",
      mimeType: 'application/json',
    },
    async (uri) => json(uri.href, await store.stats()),
  );
  server.registerResource(
    'changes',
    CHANGES_URI,
    {
      title: 'Recent changes',
      description: `The latest ${RECENT} changes of the store (oldest first) and its latest seq; subscribe to be notified when memories change`,
      mimeType: 'application/json',
    },
    async (uri) => json(uri.href, await recentChanges(store)),
  );
  server.registerResource(
    'knowledge-graph',
    GRAPH_URI,
    {
      title: 'Knowledge Graph',
      description: 'The full knowledge graph with all entities and relations',
      mimeType: 'application/json',
    },
    async (uri) => json(uri.href, await graph.readGraph()),
  );

  if (!options.subscriptions) return;
  const watchable = new Map<string, EventFilter>([
    [CHANGES_URI, { kinds: MEMORY_KINDS }],
    [GRAPH_URI, { kinds: MEMORY_KINDS, namespaces: [graph.layout.root] }],
  ]);
  const active = new Map<string, Promise<Subscription>>();

  const end = async (uri: string) => {
    const subscription = active.get(uri);
    active.delete(uri);
    if (subscription) await (await subscription).unsubscribe();
  };

  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const { uri } = request.params;
    const filter = watchable.get(uri);
    if (!filter)
      throw new McpError(
        ErrorCode.InvalidParams,
        `${uri} cannot be subscribed to: subscribe to ${[...watchable.keys()].join(' or ')}`,
      );
    let subscription = active.get(uri);
    if (!subscription) {
      subscription = store.subscribe(
        filter,
        coalesced(() => server.server.sendResourceUpdated({ uri })),
      );
      active.set(uri, subscription);
    }
    try {
      await subscription;
    } catch (e) {
      active.delete(uri);
      throw e;
    }
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    await end(request.params.uri);
    return {};
  });

  const onclose = server.server.onclose;
  server.server.onclose = () => {
    onclose?.();
    for (const uri of [...active.keys()]) end(uri).catch(() => {});
  };
}

/** A change-feed callback that runs `notify` once per burst of events (once per turn of the event loop). */
function coalesced(notify: () => Promise<void>): (event: ChangeEvent) => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      notify().catch(() => {}); // the client is gone: the server's close ends the subscription
    }, 0);
  };
}

async function recentChanges(
  store: MemoryStore,
): Promise<{ latestSeq: number; changes: ReturnType<typeof eventView>[] }> {
  const latestSeq = await store.seq();
  let after = Math.max(0, latestSeq - RECENT);
  let events: ChangeEvent[];
  try {
    events = (await store.changesPage(after, { limit: RECENT })).events;
  } catch (e) {
    const oldest = (e as { code?: unknown; oldestSeq?: unknown }).oldestSeq;
    if ((e as { code?: unknown }).code !== 'RESUME_GAP' || typeof oldest !== 'number') throw e;
    after = oldest - 1;
    events = (await store.changesPage(after, { limit: RECENT })).events;
  }
  return { latestSeq, changes: events.map(eventView) };
}

function json(uri: string, value: unknown): ReadResourceResult {
  return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }] };
}
