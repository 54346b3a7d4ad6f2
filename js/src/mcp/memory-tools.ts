/**
 * edgemem's own MCP tools, beside the knowledge graph: `remember` (write a memory), `recall` (relevance search
 * with namespace and metadata filters, at a past point with `asOf`), `forget`, `history` (every version of a
 * memory) and `changes` (what changed after a seq). Descriptions are written for the model that calls them;
 * times are ISO 8601 strings, seqs are the store's change numbers (every write gets the next one).
 */

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod/v3';
import { EdgememError } from '../api/errors.js';
import { EVENT_KINDS, FILTER_OPS } from '../api/generated/engine.js';
import type { AsOf, JsonObject, JsonValue, MemoryStore, Namespace } from '../api/types.js';
import { registerTool } from './register.js';
import { jsonResult } from './results.js';
import { eventView, hitView, versionView } from './views.js';

export interface MemoryToolsOptions {
  /** Where `remember` files a memory given no namespace (default `['memories']`). */
  defaultNamespace?: Namespace;
}

const namespaceSchema = z.array(z.string().min(1)).min(1);
const keySchema = z.string().min(1);
const json = z.any();

const recallFilter = z.object({
  field: z.string().describe('A metadata field, e.g. "topic"'),
  op: z
    .enum(FILTER_OPS)
    .describe('How the field compares to value; "in" / "nin": value is an array of allowed / excluded values'),
  value: json.describe('A JSON value (an array for "in" and "nin")'),
});

const asOfSchema = z
  .object({
    seq: z.number().int().min(0).optional().describe('The state right after this change seq'),
    time: z.string().optional().describe('The state at this time, ISO 8601 (e.g. "2026-11-20T09:00:00Z")'),
  })
  .describe('Search the memories as they were at a past point: give seq or time, not both');

const eventKinds = z.enum(EVENT_KINDS);

/** Registers remember, recall, forget, history and changes on `server`, over `store`. */
export function registerMemoryTools(server: McpServer, store: MemoryStore, options: MemoryToolsOptions = {}): void {
  const defaultNamespace = options.defaultNamespace ?? ['memories'];

  registerTool(
    server,
    'remember',
    {
      title: 'Remember',
      description:
        'Store a memory: one self-contained statement worth recalling later (a fact, a preference, a decision, a summary), ' +
        'e.g. "Alice prefers oat milk in her coffee". It is searchable by recall right away. Giving a key you used before ' +
        'replaces that memory (its earlier versions stay in history); without a key a new memory is created. Returns its namespace, ' +
        'key, version and seq.',
      inputSchema: {
        text: z.string().min(1).describe('The memory, written to be understood on its own without this conversation'),
        namespace: namespaceSchema
          .optional()
          .describe(
            `Where to file it, outermost first, e.g. ["user", "alice"] (default ${JSON.stringify(defaultNamespace)}); recall can be limited to a namespace and everything under it`,
          ),
        key: keySchema
          .optional()
          .describe(
            'A stable name within the namespace, e.g. "coffee-preference", to update this memory later; omit for a new memory',
          ),
        metadata: z
          .record(json)
          .optional()
          .describe('JSON fields recall can filter on, e.g. {"topic": "food", "source": "chat"}'),
        pinned: z.boolean().optional().describe('Never evict this memory when the store is full (default false)'),
        ttl: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('Forget this memory automatically after this many seconds'),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ text, namespace, key, metadata, pinned, ttl }) => {
      const ns = namespace ?? defaultNamespace;
      const k = key ?? crypto.randomUUID();
      const ack = await store.put({
        namespace: ns,
        key: k,
        value: text,
        text,
        ...(metadata === undefined ? {} : { metadata: metadata as JsonObject }),
        ...(pinned === undefined ? {} : { pinned }),
        ...(ttl === undefined ? {} : { ttlMs: ttl * 1000 }),
      });
      return jsonResult({ namespace: ns, key: k, version: ack.version, seq: ack.seq, evicted: ack.evicted });
    },
  );

  registerTool(
    server,
    'recall',
    {
      title: 'Recall',
      description:
        "Search stored memories for a query, most relevant first (the knowledge graph's entities included). Use it before " +
        'answering anything that may depend on what was learned earlier. Narrow it with a namespace (that namespace and everything ' +
        'under it) and metadata filters; asOf searches the memories as they were at a past seq or time.',
      inputSchema: {
        query: z.string().min(1).describe('What to look for, in natural language or keywords'),
        namespace: namespaceSchema
          .optional()
          .describe('Only memories in this namespace or under it, e.g. ["user", "alice"]'),
        filter: z.array(recallFilter).optional().describe('Metadata conditions, all of which must hold'),
        k: z.number().int().min(1).max(100).optional().describe('How many memories at most (default 10)'),
        asOf: asOfSchema.optional(),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ query, namespace, filter, k, asOf }) => {
      const hits = await store.search({
        text: query,
        k: k ?? 10,
        ...(namespace === undefined ? {} : { namespace }),
        ...(filter === undefined
          ? {}
          : { filter: filter.map((c) => ({ field: c.field, op: c.op, value: (c.value ?? null) as JsonValue })) }),
        ...(asOf === undefined ? {} : { asOf: pointInTime(asOf) }),
      });
      return jsonResult({ memories: hits.map(hitView) });
    },
  );

  registerTool(
    server,
    'forget',
    {
      title: 'Forget',
      description:
        'Delete a memory by its namespace and key (as remember or recall returned them). Use it when a memory is wrong or ' +
        'no longer true; to correct one, remember with the same key instead. Its past versions stay readable with history.',
      inputSchema: {
        namespace: namespaceSchema.describe('The namespace of the memory'),
        key: keySchema.describe('The key of the memory'),
      },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ namespace, key }) => {
      const seq = await store.delete(namespace, key);
      return jsonResult({ forgotten: true, namespace, key, seq });
    },
  );

  registerTool(
    server,
    'history',
    {
      title: 'History of a memory',
      description:
        'Every retained version of one memory, oldest first: what it said, when, and at which seq — to see how a fact or ' +
        'preference changed over time. Pages: pass nextAfterSeq back as afterSeq for the next versions.',
      inputSchema: {
        namespace: namespaceSchema.describe('The namespace of the memory'),
        key: keySchema.describe('The key of the memory'),
        afterSeq: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe('Only versions written after this seq (default 0: from the oldest)'),
        limit: z.number().int().min(1).max(1000).optional().describe('How many versions at most (default 50)'),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ namespace, key, afterSeq, limit }) => {
      const page = await store.historyPage(namespace, key, { afterSeq: afterSeq ?? 0, limit: limit ?? 50 });
      return jsonResult({ namespace, key, versions: page.versions.map(versionView), nextAfterSeq: page.nextAfterSeq });
    },
  );

  registerTool(
    server,
    'changes',
    {
      title: 'Changes since a seq',
      description:
        'What changed in the store after a seq, oldest first: memories written (put), deleted, expired or evicted, and other ' +
        'events, each with its seq. Call it with since = the nextSince of your previous call to catch up on what other agents ' +
        'or sessions did meanwhile; since = 0 reads from the start of the retained feed.',
      inputSchema: {
        since: z.number().int().min(0).describe('Changes with a seq greater than this'),
        namespace: namespaceSchema.optional().describe('Only memory changes in this namespace or under it'),
        kinds: z.array(eventKinds).optional().describe('Only these kinds of change (default: all)'),
        limit: z.number().int().min(1).max(1000).optional().describe('How many changes at most (default 100)'),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ since, namespace, kinds, limit }) => {
      // The seq first: a change committed after it is in the page or after nextSince, never skipped.
      const before = await store.seq();
      const page = await store.changesPage(since, {
        limit: limit ?? 100,
        filter: {
          ...(namespace === undefined ? {} : { namespaces: [namespace] }),
          ...(kinds === undefined ? {} : { kinds }),
        },
      });
      const lastSeq = page.events[page.events.length - 1]?.seq ?? since;
      return jsonResult({
        changes: page.events.map(eventView),
        more: page.more,
        // Where to go on: past these events, and past everything up to now that did not match when the page is whole.
        nextSince: page.more ? lastSeq : Math.max(before, lastSeq),
        latestSeq: Math.max(before, lastSeq),
      });
    },
  );
}

/** `asOf` from the tool's `{ seq }` or `{ time }` (ISO 8601). */
function pointInTime(asOf: { seq?: number | undefined; time?: string | undefined }): AsOf {
  if ((asOf.seq === undefined) === (asOf.time === undefined))
    throw new EdgememError('INVALID_ARGUMENT', 'asOf takes seq or time, one of them');
  if (asOf.seq !== undefined) return { seq: asOf.seq };
  const time = Date.parse(asOf.time as string);
  if (Number.isNaN(time)) throw new EdgememError('INVALID_ARGUMENT', `asOf.time is not an ISO 8601 time: ${asOf.time}`);
  return { time };
}
