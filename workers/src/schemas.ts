/**
 * The request and response schemas of HTTP API v1 (zod, from @hono/zod-openapi): the routes validate with
 * them and the OpenAPI document is generated from them, so the two cannot drift. Limits come from limits.ts.
 *
 * Namespaces: in JSON bodies an array of segments; in query strings (`ns`, `prefix`) one string with the
 * segments joined by `/` (`ns=user/42`; empty: the root) — so the HTTP API does not take `/` inside a segment.
 */
import { z } from '@hono/zod-openapi';
import { ENGINE_LIMITS, EVENT_KINDS, FILTER_OPS, FUSION_METHODS, METRICS, SCALAR_KINDS, SEARCH_MODES } from 'edgemem';
import { LIMITS } from './limits.js';

/** The engine's range of each fusion setting: refused here exactly where the engine and the clients refuse it. */
const FUSION = ENGINE_LIMITS.fusion;
const inRange = ([lo, hi]: readonly [number, number], int = false) =>
  (int ? z.number().int() : z.number()).min(lo).max(hi).optional();

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** A seq, version or count: an integer in 0..=2^53-1. */
export const uint = () => z.number().int().min(0).max(MAX_SAFE);
/** The same in a query string. */
export const uintQuery = () => z.coerce.number().int().min(0).max(MAX_SAFE);

export const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const AgentId = z
  .string()
  .regex(AGENT_ID, 'agent ids are 1-128 characters of A-Z a-z 0-9 . _ : - (not starting with punctuation)');

export const AgentParams = z.object({
  agent: AgentId.openapi({ param: { name: 'agent', in: 'path' }, example: 'agent-1' }),
});

/**
 * A memory key. `.` and `..` are refused (as the engine does): a URL cannot carry them as a path segment
 * (they are dot segments, resolved away before the Worker sees the path).
 */
export const Key = z
  .string()
  .min(1)
  .max(LIMITS.keyChars)
  .refine((k) => k !== '.' && k !== '..', { message: "keys must not be '.' or '..'" });

export const KeyParams = AgentParams.extend({
  key: Key.openapi({ param: { name: 'key', in: 'path' }, example: 'coffee' }),
});

export const Segment = z
  .string()
  .min(1)
  .max(LIMITS.segmentChars)
  .refine((s) => !s.includes('/'), {
    message: "namespace segments must not contain '/' in the HTTP API",
  });
export const NamespaceBody = z
  .array(Segment)
  .max(LIMITS.namespaceDepth)
  .openapi({ example: ['user', '42'] });

/** `ns=user/42` in a query string. */
export const NamespaceQuery = z
  .string()
  .max(LIMITS.namespaceDepth * (LIMITS.segmentChars + 1))
  .openapi({ description: 'namespace segments joined by "/"', example: 'user/42' });

/** Splits a query-string namespace; validates depth and segments like the body form. */
export function splitNamespace(ns: string | undefined): string[] {
  const segs = ns === undefined || ns === '' ? [] : ns.split('/');
  return NamespaceBody.parse(segs);
}

/** Any JSON value, required where it appears (zod's `unknown` alone would be documented as optional). */
export const Json = z.unknown().nonoptional().openapi({ description: 'any JSON value' });
/**
 * A JSON object (metadata), passed on as parsed. Not `z.record`: it rebuilds the object key by key and drops
 * a `__proto__` key, which the local store keeps like any other key.
 */
export const JsonObject = z
  .custom<Record<string, unknown>>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), {
    message: 'expected a JSON object',
  })
  .openapi({ type: 'object', additionalProperties: {} });

export const AsOf = z
  .union([z.object({ seq: uint() }).strict(), z.object({ time: uint() }).strict()])
  .openapi({ description: 'read as of a seq, or a time in ms since the epoch' });

/** `asOfSeq` / `asOfTime` on GET reads. */
export const AsOfQuery = z.object({
  asOfSeq: uintQuery().optional(),
  asOfTime: uintQuery().optional(),
});

/** A time in valid time (ms since the epoch; before 1970 too): any safe integer. */
export const ValidTime = () => z.number().int().min(-MAX_SAFE).max(MAX_SAFE);

const VALID_AT =
  "the memories valid at this time (ms since the epoch), or 'any' for every memory however valid (default: " +
  'valid at the read: now, or its AS OF time)';

/** `validAt` in a body: a time or `'any'`. */
export const ValidAt = z.union([z.literal('any'), ValidTime()]).openapi({ description: VALID_AT });

/** `validAt` on GET reads: a time or `any`. */
export const ValidAtQuery = z.object({
  validAt: z
    .union([z.literal('any'), z.coerce.number().int().min(-MAX_SAFE).max(MAX_SAFE)])
    .optional()
    .openapi({ description: VALID_AT }),
});

export const Vector = z.array(z.number()).max(LIMITS.dims);

export const MemoryFields = z.object({
  value: Json,
  text: z.string().max(LIMITS.memoryBytes).optional(),
  embedding: Vector.optional(),
  metadata: JsonObject.optional(),
  pinned: z.boolean().optional(),
  ttlMs: z.number().int().min(1).max(MAX_SAFE).optional(),
  ifVersion: uint().optional().openapi({ description: 'compare-and-set: 0 means "must not exist"' }),
  validFrom: ValidTime()
    .optional()
    .openapi({ description: 'valid time: when the fact became true (ms since the epoch; absent: always was)' }),
  validTo: ValidTime()
    .optional()
    .openapi({ description: 'when it stopped being true (absent: still is); reads answer with what is valid now' }),
});

export const MemoryPutBody = MemoryFields.openapi('MemoryPut');

export const BatchBody = z
  .object({
    memories: z
      .array(MemoryFields.extend({ namespace: NamespaceBody.min(1), key: Key }))
      .min(1)
      .max(LIMITS.batchItems),
  })
  .openapi('MemoryBatch');

export const WriteAck = z
  .object({
    seq: z.number(),
    version: z.number(),
    evicted: z.array(z.object({ namespace: z.array(z.string()), key: z.string() })),
  })
  .openapi('WriteAck');

export const Memory = z
  .object({
    namespace: z.array(z.string()),
    key: z.string(),
    value: Json,
    text: z.string().nullable(),
    embedding: z.array(z.number()).optional(),
    metadata: JsonObject,
    pinned: z.boolean(),
    expiresAt: z.number().nullable(),
    createdAt: z.number(),
    updatedAt: z.number(),
    version: z.number(),
    seq: z.number(),
    size: z.number(),
    validFrom: z.number().optional().openapi({ description: 'valid time: absent when open' }),
    validTo: z.number().optional(),
    seen: z.number().optional().openapi({ description: 'how many times `remember` was told this fact (absent: once)' }),
    lastSeen: z.number().optional(),
    replaces: z
      .string()
      .optional()
      .openapi({ description: 'the key (same namespace) of the memory this one superseded' }),
    replacedBy: z.string().optional().openapi({ description: 'the key of the memory that superseded this one' }),
  })
  .openapi('Memory');

export const Condition = z.object({
  field: z.string().min(1).max(LIMITS.idChars),
  op: z.enum(FILTER_OPS),
  value: Json,
});
export const Filter = z.array(Condition).max(LIMITS.filterConditions);

export const SearchBody = z
  .object({
    mode: z.enum(SEARCH_MODES).optional(),
    text: z.string().max(LIMITS.searchTextChars).optional(),
    vector: Vector.optional(),
    k: z.number().int().min(1).max(LIMITS.k).optional(),
    namespace: NamespaceBody.optional(),
    filter: Filter.optional(),
    valueFilter: Filter.optional().openapi({ description: "conditions on top-level fields of the memory's value" }),
    offset: z
      .number()
      .int()
      .min(0)
      .max(LIMITS.k)
      .optional()
      .openapi({ description: 'hits to skip first (offset + k at most 1000)' }),
    asOf: AsOf.optional(),
    validAt: ValidAt.optional(),
    fusion: z
      .object({
        method: z.enum(FUSION_METHODS).optional(),
        vectorWeight: inRange(FUSION.vectorWeight),
        rrfK: inRange(FUSION.rrfK),
        pool: inRange(FUSION.pool, true),
        feedbackDocs: inRange(FUSION.feedbackDocs, true),
        feedbackTerms: inRange(FUSION.feedbackTerms, true),
        feedbackWeight: inRange(FUSION.feedbackWeight),
        neighbourWeight: inRange(FUSION.neighbourWeight).openapi({
          description: "neighbour scoring's weight (0: off; absent: the agent's `sequence` setting decides)",
        }),
        neighbourReach: inRange(FUSION.neighbourReach, true),
      })
      .optional(),
  })
  .openapi('SearchQuery');

export const SearchHit = z
  .object({
    namespace: z.array(z.string()),
    key: z.string(),
    value: Json,
    text: z.string().nullable(),
    metadata: JsonObject,
    version: z.number(),
    seq: z.number(),
    createdAt: z.number(),
    updatedAt: z.number(),
    score: z.number(),
    vectorRank: z.number().nullable(),
    vectorScore: z.number().nullable(),
    lexicalRank: z.number().nullable(),
    lexicalScore: z.number().nullable(),
    validFrom: z.number().nullable().optional().openapi({ description: "the memory's valid time (absent when open)" }),
    validTo: z.number().nullable().optional(),
  })
  .openapi('SearchHit');

/*
 * Coherence: `remember` (a fact folded into the memory it duplicates, superseding the one it updates, or new),
 * `assess` (the same decision, nothing written), `consolidate` (the rules over what is stored) and `context`.
 */

/** A similarity threshold of the rules (the engine takes -1..=1: core/src/config.rs `CoherenceSettings::check`). */
const similarity = () => z.number().min(-1).max(1).optional();

/**
 * `remember`'s rules' settings: a call's settings replace the agent's (its `coherence` setting) as a whole; a field
 * absent from either takes the engine's default (`COHERENCE_DEFAULTS`).
 */
export const CoherenceSettings = z
  .object({
    duplicateSimilarity: similarity().openapi({ description: 'cosine at or above which two facts are the same' }),
    duplicateOverlap: similarity().openapi({ description: 'content-word overlap (Jaccard) for the same' }),
    supersedeSimilarity: similarity().openapi({
      description: 'cosine at or above which a fact with a change cue supersedes its closest memory',
    }),
    supersedeOverlap: similarity().openapi({ description: 'content-word overlap for the same, without vectors' }),
    slotUpdates: z.boolean().optional().openapi({
      description: 'a fact differing from its closest memory in one slot only (a number, a name) supersedes it',
    }),
    judgeSimilarity: similarity().openapi({ description: 'cosine at or above which a new fact is uncertain' }),
    candidates: z.number().int().min(1).max(64).optional().openapi({ description: 'memories compared with a fact' }),
  })
  .strict()
  .openapi('CoherenceSettings', {
    description: "`remember`'s rules' settings: a call's replace the agent's as a whole, absent fields the engine's",
  });

const Decision = z.enum(['new', 'duplicate', 'supersede']);

/** The memory a decision folds into or replaces, as it was. */
export const Target = z
  .object({
    key: Key,
    version: uint(),
    text: z.string().nullable().optional(),
    similarity: z.number().nullable().optional().openapi({ description: 'cosine (word overlap without vectors)' }),
  })
  .openapi('DecisionTarget');

/** One fact, as `POST /remember` and `POST /remember/assess` take it. */
export const RememberBody = z
  .object({
    namespace: NamespaceBody,
    text: z
      .string({
        error: (issue) =>
          issue.code === 'invalid_type'
            ? "a fact's `text` (a string) is required: the Worker remembers facts; extract them from messages on the client"
            : undefined,
      })
      .min(1)
      .max(LIMITS.memoryBytes)
      .openapi({ description: "the fact, in words: what the rules compare, and the memory's text" }),
    key: Key.optional().openapi({
      description: "names an attribute: the same key's other words supersede it (default: a generated m-… key)",
    }),
    value: Json.optional().openapi({ description: 'default: the text' }),
    metadata: JsonObject.optional(),
    embedding: Vector.optional().openapi({
      description: "the fact's vector (none: an agent with an embedder embeds the text as a passage)",
    }),
    pinned: z.boolean().optional(),
    validFrom: ValidTime()
      .optional()
      .openapi({ description: 'when the fact became true (default: open for a new fact, now for a supersede)' }),
    settings: CoherenceSettings.optional(),
    decided: z
      .object({ decision: Decision, target: Target.optional(), reason: z.string().max(LIMITS.idChars).optional() })
      .optional()
      .openapi({
        description:
          "a decision made outside the rules (your judge's, after assess), applied as it is: CONFLICT when its target changed since",
      }),
  })
  .openapi('RememberFact');

export const Remembered = z
  .object({
    decision: Decision,
    namespace: z.array(z.string()),
    key: z.string().openapi({ description: 'the memory that holds the fact now: the one folded into, or written' }),
    version: z.number(),
    seq: z.number(),
    target: Target.nullable().openapi({ description: 'the memory folded into (duplicate) or replaced (supersede)' }),
    reason: z.string().openapi({ description: 'the rule (or judge) that decided' }),
    judged: z.boolean(),
  })
  .openapi('Remembered');

export const Assessment = z
  .object({
    decision: Decision,
    target: Target.nullable(),
    reason: z.string(),
    uncertain: z
      .array(Target)
      .openapi({ description: "close memories the rules could not place, most similar first (a judge's questions)" }),
  })
  .openapi('Assessment');

export const ConsolidateBody = z
  .object({
    namespace: NamespaceBody.openapi({ description: 'the namespace (and those under it; [] for the whole agent)' }),
    cursor: z.string().max(4096).optional().openapi({ description: "the previous run's nextCursor" }),
    limit: z.number().int().min(1).max(LIMITS.pageItems).optional().openapi({
      description: 'memories examined at most (default 100)',
    }),
    settings: CoherenceSettings.optional(),
  })
  .openapi('ConsolidateOptions');

export const ConsolidateReport = z
  .object({
    decisions: z.array(Remembered).openapi({ description: 'the duplicates and supersedes applied' }),
    examined: uint(),
    nextCursor: z.string().nullable().openapi({ description: 'pass back as cursor to go on; null when done' }),
  })
  .openapi('ConsolidateReport');

export const ContextBody = z
  .object({
    query: z.string().max(LIMITS.searchTextChars).optional().openapi({ description: 'what the prompt is about' }),
    vector: Vector.optional().openapi({
      description: "the query's vector (none: an agent with an embedder embeds the query)",
    }),
    namespaces: z
      .array(NamespaceBody)
      .max(LIMITS.filterItems)
      .optional()
      .openapi({ description: 'namespace prefixes to draw from (default: the whole agent)' }),
    budget: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .openapi({ description: 'tokens at most, estimated as bytes / 4 (default 1000)' }),
    validAt: ValidAt.optional(),
    recent: z
      .number()
      .int()
      .min(0)
      .max(LIMITS.k)
      .optional()
      .openapi({ description: 'latest supersedes listed at most (default 5; 0: none)' }),
  })
  .openapi('ContextOptions');

export const ContextBlock = z
  .object({
    text: z.string().openapi({ description: 'Markdown: ## Pinned, ## Relevant facts, ## Recent changes' }),
    tokens: uint(),
    items: z.array(
      z.object({
        section: z.string().openapi({ description: 'pinned, relevant or recent' }),
        namespace: z.array(z.string()),
        key: z.string(),
        text: z.string(),
        validFrom: z.number().nullable(),
        validTo: z.number().nullable(),
        updatedAt: z.number(),
        score: z.number().nullable(),
        replaced: z.string().nullable().openapi({ description: 'for a recent supersede: the text it replaced' }),
      }),
    ),
  })
  .openapi('ContextBlock');

export const Id = z.string().min(1).max(LIMITS.idChars);

/** Checkpoint payloads: `data` (JSON) or `dataBase64` (opaque bytes), exactly one. */
export const DataFields = {
  data: Json.optional(),
  dataBase64: z
    .string()
    .max(Math.ceil(LIMITS.checkpointBytes / 3) * 4)
    .optional(),
};

/** A checkpoint's channel versions: channel -> version, both ids. */
const ChannelVersions = z.record(Id, Id).openapi({ description: 'the version of each channel the checkpoint holds' });

export const CheckpointPutBody = z
  .object({
    threadId: Id,
    checkpointNs: z.string().max(LIMITS.idChars).optional(),
    checkpointId: Id,
    parentId: Id.nullable().optional(),
    metadata: JsonObject.optional(),
    ...DataFields,
    channelVersions: ChannelVersions.optional(),
    blobs: z
      .array(z.object({ channel: Id, version: Id, ...DataFields }).strict())
      .max(LIMITS.writesPerCall)
      .optional()
      .openapi({ description: 'values of the channel versions this checkpoint made, stored once per version' }),
  })
  .openapi('CheckpointPut');

export const WritesBody = z
  .object({
    checkpointNs: z.string().max(LIMITS.idChars).optional(),
    checkpointId: Id,
    taskId: Id,
    writes: z
      .array(z.object({ channel: Id, ...DataFields }).strict())
      .min(1)
      .max(LIMITS.writesPerCall),
  })
  .openapi('PendingWrites');

const DataOut = { data: Json.optional(), dataBase64: z.string().optional() };

export const Checkpoint = z
  .object({
    threadId: z.string(),
    checkpointNs: z.string(),
    checkpointId: z.string(),
    parentId: z.string().nullable(),
    metadata: JsonObject,
    createdAt: z.number(),
    seq: z.number(),
    pendingWrites: z.array(z.object({ taskId: z.string(), idx: z.number(), channel: z.string(), ...DataOut })),
    ...DataOut,
    channelVersions: z.record(z.string(), z.string()),
    blobs: z.array(z.object({ channel: z.string(), version: z.string(), ...DataOut })),
  })
  .openapi('Checkpoint');

export const EventKind = z.enum(EVENT_KINDS);

export const ChangeEvent = z
  .object({
    seq: z.number(),
    ts: z.number(),
    kind: EventKind,
    namespace: z.array(z.string()).optional(),
    key: z.string().optional(),
    version: z.number().optional(),
    channel: z.string().optional(),
    payload: Json.optional(),
  })
  .openapi('ChangeEvent');

export const EventFilter = z
  .object({
    kinds: z.array(EventKind).max(LIMITS.filterItems).optional(),
    namespaces: z.array(NamespaceBody).max(LIMITS.filterItems).optional(),
    channels: z.array(Id).max(LIMITS.filterItems).optional(),
  })
  .strict()
  .openapi('EventFilter');

export const NotifyBody = z.object({ channel: Id, payload: Json }).openapi('Notify');

export const Stats = z.record(z.string(), z.union([z.number(), z.string(), z.null()])).openapi('Stats');

export const ImportProgress = z
  .object({
    done: z.boolean(),
    versions: uint(),
    commits: uint(),
    checkpoints: uint(),
    writes: uint(),
  })
  .openapi('ImportProgress', { description: 'how many lines of each kind were imported' });

export const Scope = z.enum(['read', 'write', 'subscribe']);

export const TokenBody = z
  .object({
    agent: AgentId,
    scopes: z.array(Scope).min(1).max(3),
    ttlSeconds: z.number().int().min(1).max(LIMITS.tokenMaxTtlSeconds).optional(),
  })
  .openapi('TokenRequest');

export const TokenResponse = z
  .object({ token: z.string(), agent: z.string(), scopes: z.array(Scope), expiresAt: z.number() })
  .openapi('Token');

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'INVALID_ARGUMENT' }),
      message: z.string(),
      oldestSeq: z.number().optional(),
    }),
  })
  .openapi('Error');

const Metric = z.enum(METRICS);
const Scalar = z.enum(SCALAR_KINDS);
/** How an agent's memories form sequences (the engine's `StoreOptions.sequence`). */
const Sequence = z.enum(['namespace', 'none']);
const RetentionFields = {
  historyVersions: uint().optional().openapi({ description: 'versions kept per key' }),
  historyMaxAgeMs: uint().optional(),
  eventsMax: uint().optional().openapi({ description: 'change-feed events retained' }),
  eventsMaxAgeMs: uint().optional(),
  checkpointsPerThread: uint().optional(),
  checkpointsMaxBytes: uint().optional(),
};

/*
 * The embedder setting's string rules are refinements, not `pattern`s in the OpenAPI document: the robustness
 * fuzzer makes conforming strings by filtering its hostile ones through a document's pattern, and these patterns
 * (a URL scheme, `@cf/`) almost never pass, which starves it. The rules are in the descriptions instead.
 */

function isUrl(u: string): boolean {
  try {
    new URL(u);
    return true;
  } catch {
    return false;
  }
}

/** A Worker variable or secret name; the Worker's own credentials are never sent to an embeddings endpoint. */
const SecretName = z
  .string()
  .max(64)
  .refine((n) => /^[A-Z][A-Z0-9_]{0,63}$/.test(n), 'a secret name is 1-64 characters of A-Z 0-9 _')
  .refine(
    (n) => n !== 'ADMIN_TOKEN' && n !== 'TOKEN_SECRET',
    "the Worker's own credentials cannot be an embeddings key",
  );

/**
 * The agent's embedder: bodies without embeddings (a PUT with text, a search with text) are embedded with it.
 * `openai`: any OpenAI-compatible `/v1/embeddings` endpoint, its API key read from the Worker secret named by
 * `apiKeySecret` (the key itself is never stored in the agent). `workers-ai`: the Worker's `AI` binding.
 */
export const EmbedderSetting = z
  .discriminatedUnion('kind', [
    z
      .object({
        kind: z.literal('openai'),
        url: z
          .string()
          .max(2048)
          .refine((u) => /^https?:\/\/[^/]/.test(u) && isUrl(u), 'an http(s) URL')
          .openapi({ description: 'an http(s) URL: the API base (…/v1) or the embeddings URL itself' }),
        model: z.string().min(1).max(200),
        dims: z.number().int().min(1).max(LIMITS.dims),
        apiKeySecret: SecretName.optional().openapi({
          description: 'the name of the Worker secret holding the API key (none: no Authorization header)',
        }),
        id: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .openapi({ description: "recorded as the store's embedder (default openai:<model>)" }),
        normalized: z.boolean().optional(),
        inputType: z
          .boolean()
          .optional()
          .openapi({ description: "send input_type: 'query' | 'passage' (servers of asymmetric models read it)" }),
        prefixes: z
          .object({ query: z.string().max(100).optional(), passage: z.string().max(100).optional() })
          .strict()
          .optional(),
      })
      .strict(),
    z
      .object({
        kind: z.literal('workers-ai'),
        model: z
          .string()
          .max(204)
          .refine(
            (m) => /^@cf\/[A-Za-z0-9._/-]{1,200}$/.test(m),
            'a Workers AI model name such as @cf/baai/bge-small-en-v1.5',
          )
          .openapi({ description: 'a Workers AI text embedding model, @cf/…' }),
        dims: z.number().int().min(1).max(LIMITS.dims),
        prefixes: z
          .object({ query: z.string().max(100).optional(), passage: z.string().max(100).optional() })
          .strict()
          .optional(),
      })
      .strict(),
  ])
  .openapi('EmbedderSetting');

/** An agent's own store settings (`PUT /v1/agents/{agent}`); absent fields take the Worker's defaults. */
export const AgentSettings = z
  .object({
    dims: z
      .number()
      .int()
      .min(0)
      .max(LIMITS.dims)
      .optional()
      .openapi({ description: 'embedding dimensions (0: no vectors); fixed once the agent holds data' }),
    metric: Metric.optional().openapi({ description: 'fixed once the agent holds data' }),
    scalar: Scalar.optional().openapi({
      description: 'vector quantization (i8 and i4 need cosine); fixed once the agent holds data',
    }),
    maxBytes: uint().optional().openapi({ description: 'cap on live unpinned memories, bytes (0: none)' }),
    maxMemories: uint().optional().openapi({ description: 'cap on live unpinned memories, count (0: none)' }),
    retention: z.object(RetentionFields).strict().optional(),
    maxMemoryBytes: z.number().int().min(1).max(LIMITS.memoryBytes).optional(),
    maxCheckpointBytes: z.number().int().min(1).max(LIMITS.checkpointBytes).optional(),
    sequence: Sequence.optional().openapi({
      description: "namespace: a namespace's memories form a sequence and searches score neighbours; none: unordered",
    }),
    embedder: EmbedderSetting.optional(),
    coherence: CoherenceSettings.optional().openapi({
      description: "`remember`'s rules' settings for this agent (absent fields: the engine's defaults)",
    }),
    consolidate: z
      .boolean()
      .optional()
      .openapi({
        description:
          "the maintenance alarm consolidates the agent's memories (remember's rules over what is stored, never deleting), " +
          `at most ${LIMITS.consolidatePerAlarm} memories per run, resuming where the last run stopped`,
      }),
  })
  .strict()
  .refine((s) => s.embedder === undefined || s.dims === undefined || s.dims === s.embedder.dims, {
    message: 'dims must equal embedder.dims (or be left out: the embedder sets it)',
    path: ['dims'],
  })
  .openapi('AgentSettings');

export const AgentInfo = z
  .object({
    agent: z.string(),
    settings: z.object({
      dims: z.number(),
      metric: Metric,
      scalar: Scalar,
      maxBytes: z.number().optional(),
      maxMemories: z.number().optional(),
      retention: z.object(RetentionFields).optional(),
      maxMemoryBytes: z.number().optional(),
      maxCheckpointBytes: z.number().optional(),
      sequence: Sequence.optional(),
      embedder: EmbedderSetting.optional(),
      coherence: CoherenceSettings.optional(),
      consolidate: z.boolean().optional(),
    }),
    seq: uint().openapi({ description: "the agent's latest seq (0: no data yet)" }),
  })
  .openapi('Agent');
