/**
 * `EdgememStore`: LangGraph's `BaseStore` over any `MemoryStore` (local or `connect()`), with edgemem's vector,
 * lexical and hybrid search, valid time, and — with the `remember` option — consolidation on write: puts of text
 * items go through `remember`, so a duplicate is folded and an update supersedes what it replaces.
 */
import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
  validateNamespace,
} from '@langchain/langgraph-checkpoint';
import { EdgememError } from '../api/errors.js';
import type {
  AsOf,
  ChatMessage,
  CoherenceSettings,
  ContextBlock,
  ContextOptions,
  JsonObject,
  JsonValue,
  MemoryInput,
  MemoryStore,
  Namespace,
  Remembered,
  RememberInput,
  SearchMode,
  ValidAt,
} from '../api/types.js';
import { textsAtPath } from './field-paths.js';
import { toConditions } from './filters.js';
import { type MessageLike, toChatMessages } from './messages.js';
import { storeEmbedder } from './store-embedder.js';

/**
 * What the store indexes for search: LangGraph's `IndexConfig` (`dims` and `embeddings` given), or, over a
 * store that embeds text itself (`openStore({ embedder })`, `connect({ embedder })`, or an agent whose Worker
 * has an embedder), just the `fields`: puts then send the fields' text and the store embeds it; searches send
 * the query's text.
 */
export type EdgememIndexConfig = EmbeddingsIndexConfig | StoreEmbeddedIndexConfig;

/** An index embedded by a LangGraph `EmbeddingsInterface`. */
export interface EmbeddingsIndexConfig {
  /** Must equal the edgemem store's `dims`. */
  dims: number;
  /** Embeds the indexed texts (`embedDocuments`) and queries (`embedQuery`). */
  embeddings: EmbeddingsInterface;
  /** Which parts of a value to index, in LangGraph's path syntax (default `["$"]`: the whole value). */
  fields?: string[];
}

/** An index embedded by the store's own embedder (checked on first use: INVALID_ARGUMENT if it has none). */
export interface StoreEmbeddedIndexConfig {
  /** If given, must equal the store's embedder's dimensions. */
  dims?: number;
  embeddings?: undefined;
  /** Which parts of a value to index, in LangGraph's path syntax (default `["$"]`: the whole value). */
  fields?: string[];
}

export interface EdgememStoreOptions {
  /** Vector search over the fields' texts. Without it, a query searches the same texts lexically (BM25). */
  index?: EdgememIndexConfig;
  /** How a search with a query ranks when there is an index (default `'hybrid'`: vectors and BM25 fused). */
  searchMode?: SearchMode;
  /**
   * Consolidation on write: a put of a text item (a value with a non-empty string at `field`, default `text`) goes
   * through the store's `remember` instead of a plain put — the same fact told again is folded into the memory that
   * holds it, a new value of the same thing supersedes the old (closed, kept in history), anything else is stored
   * under its key. `true` takes the defaults. A put with `index: false`, of another value, or (with `namespaces`)
   * under another namespace is a plain put.
   */
  remember?: boolean | EdgememRememberOptions;
}

/** Which puts go through `remember`, and how it decides. */
export interface EdgememRememberOptions {
  /** The value's field holding the fact, in LangGraph's path syntax (default `text`; e.g. `content`, `data`). */
  field?: string;
  /** Only puts under these namespace prefixes (default: every namespace). */
  namespaces?: Namespace[];
  /** The rules' settings (default: the store's). */
  settings?: CoherenceSettings;
}

/** A search operation with what edgemem adds: the ranking, valid time and a point in the past. */
export interface EdgememSearchOperation extends SearchOperation {
  mode?: SearchMode;
  asOf?: AsOf;
  validAt?: ValidAt;
}

/** `search` options: LangGraph's, plus `mode`, `validAt` and `asOf`. */
export interface EdgememSearchOptions {
  filter?: Record<string, unknown>;
  limit?: number;
  offset?: number;
  query?: string;
  mode?: SearchMode;
  asOf?: AsOf;
  /** The items valid at this time (ms since the epoch), or `'any'`; default: those valid now. */
  validAt?: ValidAt;
}

/** What `EdgememStore.remember` takes: a fact, or messages (LangChain's or `{ role, content }`) for the extractor. */
export interface EdgememRememberInput extends Omit<RememberInput, 'messages'> {
  messages?: readonly (ChatMessage | MessageLike)[];
}

/** `remember` resolved: which puts it takes, and the fact's path. */
interface RememberRule {
  field: string;
  namespaces: Namespace[] | undefined;
  settings: CoherenceSettings | undefined;
}

function rememberRule(option: EdgememStoreOptions['remember']): RememberRule | undefined {
  if (!option) return undefined;
  const o = option === true ? {} : option;
  return { field: o.field ?? 'text', namespaces: o.namespaces, settings: o.settings };
}

const startsWith = (ns: Namespace, prefix: Namespace) => prefix.every((s, i) => ns[i] === s);

/** The string at `path` in `value` (a dotted path walked as it is; other LangGraph paths must give one string). */
function stringAt(value: unknown, path: string): string | undefined {
  if (/^[^.[\]{}*$]+(\.[^.[\]{}*$]+)*$/.test(path)) {
    let v: unknown = value;
    for (const part of path.split('.')) {
      v = typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>)[part] : undefined;
    }
    return typeof v === 'string' ? v : undefined;
  }
  const texts = path === '$' ? [] : textsAtPath(value, path);
  return texts.length === 1 ? texts[0] : undefined;
}

function isPut(op: Operation): op is PutOperation {
  return 'value' in op;
}
function isGet(op: Operation): op is GetOperation {
  return 'key' in op && 'namespace' in op && !('value' in op);
}
function isSearch(op: Operation): op is EdgememSearchOperation {
  return 'namespacePrefix' in op;
}
function isListNamespaces(op: Operation): op is ListNamespacesOperation {
  return 'matchConditions' in op || ('limit' in op && 'offset' in op && !('namespacePrefix' in op));
}

function item(m: { namespace: Namespace; key: string; value: JsonValue; createdAt: number; updatedAt: number }): Item {
  return {
    namespace: m.namespace,
    key: m.key,
    value: m.value as Record<string, unknown>,
    createdAt: new Date(m.createdAt),
    updatedAt: new Date(m.updatedAt),
  };
}

/**
 * A LangGraph store over an edgemem store: `new EdgememStore(await openStore(...))` in-process (Node file,
 * browser OPFS, workerd) or `new EdgememStore(connect({ url, agent, token }))` against the Worker. An
 * item is a memory (namespace, key, value); its indexed fields' texts are the memory's text (lexical
 * search) and, with `index`, their embedding (one vector per item, of the fields' texts joined).
 *
 * As in LangGraph, a batch answers its reads first and then applies its writes (the last write of a key
 * wins); the writes go to the store together (all or nothing), deletes after them.
 */
export class EdgememStore extends BaseStore {
  readonly store: MemoryStore;
  readonly #index: EdgememIndexConfig | undefined;
  readonly #mode: SearchMode;
  readonly #remember: RememberRule | undefined;
  /** With an index that has no `embeddings`: the check that the store embeds, made once. */
  #storeEmbeds: Promise<void> | undefined;

  constructor(store: MemoryStore, options: EdgememStoreOptions = {}) {
    super();
    this.store = store;
    this.#index = options.index;
    this.#mode = options.searchMode ?? 'hybrid';
    this.#remember = rememberRule(options.remember);
  }

  /**
   * Remembers a fact (or the facts the store's extractor finds in `messages`, LangChain messages welcome) through
   * the store's `remember`, embedded by the index's embeddings when it has them; answers with each decision.
   */
  async remember(input: EdgememRememberInput): Promise<Remembered[]> {
    validateNamespace(input.namespace);
    const { messages, ...rest } = input;
    if (messages !== undefined) return this.store.remember({ ...rest, messages: toChatMessages(messages) });
    const fn = this.#index && input.embedding === undefined ? await this.#embeddings(this.#index) : null;
    if (fn && typeof input.text === 'string' && input.text.trim() !== '') {
      const [vector] = await fn.embeddings.embedDocuments([input.text]);
      return this.store.remember({ ...rest, embedding: this.#checked(fn, vector) });
    }
    return this.store.remember(rest);
  }

  /**
   * The prompt-ready block of what the store knows about `options.query` (pinned memories, the relevant facts valid
   * now, the latest changes), within `options.budget` tokens; the query embedded by the index's embeddings when it
   * has them. From a LangGraph node, `memoryContext(config.store, options)` reaches it.
   */
  async context(options: ContextOptions = {}): Promise<ContextBlock> {
    const fn = this.#index && options.vector === undefined ? await this.#embeddings(this.#index) : null;
    if (fn && options.query)
      return this.store.context({ ...options, vector: await fn.embeddings.embedQuery(options.query) });
    return this.store.context(options);
  }

  /** `vector` checked against the index's dimensions. */
  #checked(fn: EmbeddingsIndexConfig, vector: number[] | undefined): number[] {
    if (!vector || vector.length !== fn.dims) {
      throw new EdgememError(
        'DIMENSION_MISMATCH',
        `EdgememStore: the embeddings gave ${vector?.length ?? 0} dimensions, index.dims is ${fn.dims}`,
      );
    }
    return vector;
  }

  /** The index's embeddings, or null when the store embeds (after checking, once, that it does). */
  async #embeddings(index: EdgememIndexConfig): Promise<EmbeddingsIndexConfig | null> {
    if (index.embeddings !== undefined) return index;
    this.#storeEmbeds ??= storeEmbedder(this.store).then((e) => {
      if (e === null) {
        throw new EdgememError(
          'INVALID_ARGUMENT',
          'EdgememStore: an index without `embeddings` needs a store that embeds (openStore({ embedder }), connect({ embedder }), or an agent with an embedder setting)',
        );
      }
      if (index.dims !== undefined && index.dims !== e.dims) {
        throw new EdgememError(
          'DIMENSION_MISMATCH',
          `EdgememStore: index.dims is ${index.dims}, the store's embedder (${e.id}) gives ${e.dims}`,
        );
      }
    });
    this.#storeEmbeds.catch(() => {
      this.#storeEmbeds = undefined; // a failed check (e.g. the network) is made again next time
    });
    await this.#storeEmbeds;
    return null;
  }

  /**
   * LangGraph's `search`, plus `mode` (vector, lexical or hybrid), `validAt` (the items valid then, or `'any'`) and
   * `asOf` (the store as it was then).
   */
  override async search(namespacePrefix: string[], options: EdgememSearchOptions = {}): Promise<SearchItem[]> {
    const [hits] = await this.batch([{ namespacePrefix, ...options } as EdgememSearchOperation]);
    return hits as SearchItem[];
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    const puts = new Map<string, PutOperation>();
    for (const op of operations) {
      if ('namespace' in op) validateNamespace(op.namespace, { allowReservedRoot: true });
      if (isPut(op)) {
        puts.set(JSON.stringify([op.namespace, op.key]), op);
        results.push(undefined);
      } else if (isGet(op)) {
        const m = await this.store.get(op.namespace, op.key);
        results.push(m === null ? null : item(m));
      } else if (isSearch(op)) {
        results.push(await this.#search(op));
      } else if (isListNamespaces(op)) {
        results.push(await this.#listNamespaces(op));
      } else {
        throw new EdgememError('INVALID_ARGUMENT', `EdgememStore: unknown operation ${JSON.stringify(op)}`);
      }
    }
    if (puts.size > 0) await this.#write([...puts.values()]);
    return results as OperationResults<Op>;
  }

  async #search(op: EdgememSearchOperation): Promise<SearchItem[]> {
    if (op.namespacePrefix.length > 0) validateNamespace(op.namespacePrefix, { allowReservedRoot: true });
    const limit = op.limit ?? 10;
    const offset = op.offset ?? 0;
    const valueFilter = toConditions(op.filter);
    if (op.query === undefined || op.query === '') {
      const page = await this.store.list({
        prefix: op.namespacePrefix,
        valueFilter,
        offset,
        limit,
        asOf: op.asOf,
        validAt: op.validAt,
      });
      return page.items.slice(0, limit).map((m) => ({ ...item(m), score: undefined }));
    }
    const mode = op.mode ?? (this.#index ? this.#mode : 'lexical');
    let vector: number[] | undefined;
    let text: string | undefined = mode === 'vector' ? undefined : op.query;
    if (mode !== 'lexical') {
      if (!this.#index)
        throw new EdgememError('INVALID_ARGUMENT', 'EdgememStore: vector and hybrid search need an `index`');
      const fn = await this.#embeddings(this.#index);
      if (fn) vector = await fn.embeddings.embedQuery(op.query);
      else text = op.query; // the store embeds it
    }
    const hits = await this.store.search({
      mode,
      text,
      vector,
      k: limit,
      offset,
      namespace: op.namespacePrefix,
      valueFilter,
      asOf: op.asOf,
      validAt: op.validAt,
    });
    return hits.map((h) => ({ ...item(h), score: h.score }));
  }

  async #listNamespaces(op: ListNamespacesOperation): Promise<string[][]> {
    const prefix = op.matchConditions?.filter((c) => c.matchType === 'prefix') ?? [];
    const suffix = op.matchConditions?.filter((c) => c.matchType === 'suffix') ?? [];
    if (prefix.length > 1 || suffix.length > 1) {
      throw new EdgememError('INVALID_ARGUMENT', 'EdgememStore.listNamespaces takes at most one prefix and one suffix');
    }
    return this.store.listNamespaces({
      prefix: prefix[0]?.path,
      suffix: suffix[0]?.path,
      maxDepth: op.maxDepth,
      limit: op.limit,
      offset: op.offset,
    });
  }

  /** The fact a put gives `remember` (its text at the rule's field), or undefined for a plain put. */
  #factOf(op: PutOperation): string | undefined {
    const rule = this.#remember;
    if (!rule || op.value === null || op.index === false) return undefined;
    if (rule.namespaces && !rule.namespaces.some((p) => startsWith(op.namespace, p))) return undefined;
    const text = stringAt(op.value, rule.field)?.trim();
    return text === '' ? undefined : text;
  }

  /**
   * Applies a batch's puts: the texts of each value's indexed fields, embedded together (by the index's
   * embeddings, or by the store when it embeds), then one putBatch; then, with the `remember` option, the text
   * items' facts remembered one by one; deletes last.
   */
  async #write(ops: PutOperation[]): Promise<void> {
    const fn = this.#index ? await this.#embeddings(this.#index) : null;
    const inputs: MemoryInput[] = [];
    const toEmbed: { input: MemoryInput; text: string }[] = [];
    const deletes: PutOperation[] = [];
    const facts: { op: PutOperation; text: string }[] = [];
    for (const op of ops) {
      if (op.value === null) {
        deletes.push(op);
        continue;
      }
      const fact = this.#factOf(op);
      if (fact !== undefined) {
        facts.push({ op, text: fact });
        continue;
      }
      const input: MemoryInput = { namespace: op.namespace, key: op.key, value: op.value as JsonValue };
      if (op.index !== false) {
        const fields = op.index ?? this.#index?.fields ?? ['$'];
        const texts = fields.flatMap((f) => textsAtPath(op.value, f));
        if (texts.length > 0) {
          input.text = texts.join('\n');
          if (fn) toEmbed.push({ input, text: input.text });
        }
      }
      inputs.push(input);
    }
    if (toEmbed.length > 0 && fn) {
      const vectors = await fn.embeddings.embedDocuments(toEmbed.map((e) => e.text));
      toEmbed.forEach((e, i) => {
        e.input.embedding = this.#checked(fn, vectors[i]);
      });
    }
    if (inputs.length > 0) await this.store.putBatch(inputs);
    if (facts.length > 0) {
      const vectors = fn ? await fn.embeddings.embedDocuments(facts.map((f) => f.text)) : [];
      for (const [i, { op, text }] of facts.entries()) {
        await this.store.remember({
          namespace: op.namespace,
          key: op.key,
          text,
          value: op.value as JsonObject,
          ...(fn ? { embedding: this.#checked(fn, vectors[i]) } : {}),
          ...(this.#remember?.settings ? { settings: this.#remember.settings } : {}),
        });
      }
    }
    for (const op of deletes) {
      try {
        await this.store.delete(op.namespace, op.key);
      } catch (e) {
        if (!(e instanceof EdgememError && e.code === 'NOT_FOUND')) throw e;
      }
    }
  }
}
