/**
 * edgemem's own MCP tools, beside the knowledge graph: `remember` (a fact, consolidated on write: folded into the
 * memory it duplicates, superseding the one it updates, or new), `recall` (relevance search with namespace and
 * metadata filters, what is true at `validAt`, at a past point with `asOf`), `context` (a prompt-ready block within
 * a token budget), `forget`, `history` (every version of a memory) and `changes` (what changed after a seq).
 * Descriptions are written for the model that calls them; times are ISO 8601 strings, seqs are the store's change
 * numbers (every write gets the next one).
 */

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod/v3';
import { EdgememError } from '../api/errors.js';
import { EVENT_KINDS, FILTER_OPS } from '../api/generated/engine.js';
import type {
  AsOf,
  ContextOptions,
  JsonObject,
  JsonValue,
  MemoryStore,
  Namespace,
  Remembered,
  ValidAt,
} from '../api/types.js';
import { registerTool } from './register.js';
import { jsonResult } from './results.js';
import { contextItemView, eventView, hitView, versionView } from './views.js';

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

const validAtSchema = z
  .string()
  .min(1)
  .describe(
    'Only the facts true at this time, ISO 8601 (e.g. "2026-03-01"), or "any" to include facts no longer true ' +
      '(superseded or ended); default: what is true now',
  );

const eventKinds = z.enum(EVENT_KINDS);

/** Registers remember, recall, context, forget, history and changes on `server`, over `store`. */
export function registerMemoryTools(server: McpServer, store: MemoryStore, options: MemoryToolsOptions = {}): void {
  const defaultNamespace = options.defaultNamespace ?? ['memories'];

  registerTool(
    server,
    'remember',
    {
      title: 'Remember',
      description:
        'Remember a fact: one self-contained statement worth recalling later (a fact, a preference, a decision, a summary), ' +
        'e.g. "Alice prefers oat milk in her coffee". The memory is kept coherent as it is written: a fact already known is ' +
        'folded into the memory that holds it (decision "duplicate", nothing new is stored); a new value of something known ' +
        '("Alice now takes soy milk") supersedes the old memory, which stays in history but is no longer recalled as true ' +
        '(decision "supersede"); anything else is stored as a new memory (decision "new"). Facts that only look alike ' +
        '(another number, date, name or a negation) are kept apart. Returns the decision, the memory that holds the fact ' +
        '(namespace, key) and, for a duplicate or a supersede, the memory it folded into or replaced (target).',
      inputSchema: {
        text: z.string().min(1).describe('The fact, written to be understood on its own without this conversation'),
        namespace: namespaceSchema
          .optional()
          .describe(
            `Where to file it, outermost first, e.g. ["user", "alice"] (default ${JSON.stringify(defaultNamespace)}); facts are compared with the memories of this namespace, and recall can be limited to a namespace and everything under it`,
          ),
        key: keySchema
          .optional()
          .describe(
            'A stable name of what the fact is about within the namespace, e.g. "coffee-preference": remembering other words under the same key supersedes it. Omit it to let the memory find what the fact duplicates or updates',
          ),
        metadata: z
          .record(json)
          .optional()
          .describe('JSON fields recall can filter on, e.g. {"topic": "food", "source": "chat"}'),
        pinned: z
          .boolean()
          .optional()
          .describe('Always include this memory in context and never evict it when the store is full (default false)'),
        validFrom: z
          .string()
          .min(1)
          .optional()
          .describe(
            'When the fact became true in the world, ISO 8601 (e.g. "2026-06-01"); default: from now for a fact that supersedes another',
          ),
      },
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ text, namespace, key, metadata, pinned, validFrom }) => {
      const [r] = await store.remember({
        namespace: namespace ?? defaultNamespace,
        text,
        ...(key === undefined ? {} : { key }),
        ...(metadata === undefined ? {} : { metadata: metadata as JsonObject }),
        ...(pinned === undefined ? {} : { pinned }),
        ...(validFrom === undefined ? {} : { validFrom: isoTime(validFrom, 'validFrom') }),
      });
      if (r === undefined) throw new EdgememError('INTERNAL', 'remember answered no decision');
      return jsonResult(rememberedView(r));
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
        'under it) and metadata filters. It finds what is true now; validAt asks what was true at another time (or "any" ' +
        'for facts since superseded too), and asOf searches the memories as they were stored at a past seq or time.',
      inputSchema: {
        query: z.string().min(1).describe('What to look for, in natural language or keywords'),
        namespace: namespaceSchema
          .optional()
          .describe('Only memories in this namespace or under it, e.g. ["user", "alice"]'),
        filter: z.array(recallFilter).optional().describe('Metadata conditions, all of which must hold'),
        k: z.number().int().min(1).max(100).optional().describe('How many memories at most (default 10)'),
        validAt: validAtSchema.optional(),
        asOf: asOfSchema.optional(),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ query, namespace, filter, k, validAt, asOf }) => {
      const hits = await store.search({
        text: query,
        k: k ?? 10,
        ...(namespace === undefined ? {} : { namespace }),
        ...(filter === undefined
          ? {}
          : { filter: filter.map((c) => ({ field: c.field, op: c.op, value: (c.value ?? null) as JsonValue })) }),
        ...(validAt === undefined ? {} : { validAt: validTime(validAt) }),
        ...(asOf === undefined ? {} : { asOf: pointInTime(asOf) }),
      });
      return jsonResult({ memories: hits.map(hitView) });
    },
  );

  registerTool(
    server,
    'context',
    {
      title: 'Context for a prompt',
      description:
        'What memory knows that bears on a topic, as one prompt-ready Markdown block within a token budget: the pinned ' +
        'memories, the facts relevant to the query that are true now (with since when), and the latest changes (what ' +
        'superseded what). Call it at the start of a task or conversation to load what you know; use recall to look up ' +
        'something specific.',
      inputSchema: {
        query: z
          .string()
          .min(1)
          .optional()
          .describe('What the task or conversation is about; without it only pinned memories and recent changes'),
        namespaces: z
          .array(namespaceSchema)
          .optional()
          .describe('Draw only from these namespaces and those under them, e.g. [["user", "alice"]] (default: all)'),
        budget: z
          .number()
          .int()
          .min(1)
          .max(100_000)
          .optional()
          .describe('The most tokens the block may take (estimated as characters / 4; default 1000)'),
        recent: z
          .number()
          .int()
          .min(0)
          .max(100)
          .optional()
          .describe('How many of the latest changes to list (default 5; 0 for none)'),
        validAt: validAtSchema.optional(),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ query, namespaces, budget, recent, validAt }) => {
      const options: ContextOptions = {};
      if (query !== undefined) options.query = query;
      if (namespaces !== undefined) options.namespaces = namespaces;
      if (budget !== undefined) options.budget = budget;
      if (recent !== undefined) options.recent = recent;
      if (validAt !== undefined) options.validAt = validTime(validAt);
      const block = await store.context(options);
      const text = block.text === '' ? 'Nothing in memory for this context.' : block.text;
      return {
        content: [{ type: 'text', text }],
        structuredContent: { text: block.text, tokens: block.tokens, items: block.items.map(contextItemView) },
      };
    },
  );

  registerTool(
    server,
    'forget',
    {
      title: 'Forget',
      description:
        'Delete a memory by its namespace and key (as remember or recall returned them). Use it when a memory is wrong; ' +
        'when a fact has changed, remember the new one instead (it supersedes the old, keeping it in history). Its past ' +
        'versions stay readable with history.',
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
        'What changed in the store after a seq, oldest first: memories written (put), superseded by a newer fact, deleted, ' +
        'expired or evicted, and other ' +
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

/** What `remember` decided, for the model: the memory that holds the fact, and what it folded into or replaced. */
function rememberedView(r: Remembered) {
  return {
    decision: r.decision,
    namespace: r.namespace,
    key: r.key,
    version: r.version,
    seq: r.seq,
    target: r.target,
    reason: r.reason,
    ...(r.judged ? { judged: true } : {}),
  };
}

/** An ISO 8601 time (a tool argument named `what`) as ms since the epoch. */
function isoTime(text: string, what: string): number {
  const time = Date.parse(text);
  if (Number.isNaN(time)) throw new EdgememError('INVALID_ARGUMENT', `${what} is not an ISO 8601 time: ${text}`);
  return time;
}

/** `validAt` from the tool's ISO 8601 time or `"any"`. */
function validTime(text: string): ValidAt {
  return text === 'any' ? 'any' : isoTime(text, 'validAt');
}

/** `asOf` from the tool's `{ seq }` or `{ time }` (ISO 8601). */
function pointInTime(asOf: { seq?: number | undefined; time?: string | undefined }): AsOf {
  if ((asOf.seq === undefined) === (asOf.time === undefined))
    throw new EdgememError('INVALID_ARGUMENT', 'asOf takes seq or time, one of them');
  if (asOf.seq !== undefined) return { seq: asOf.seq };
  return { time: isoTime(asOf.time as string, 'asOf.time') };
}
