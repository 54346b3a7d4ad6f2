/** `EdgememStore`: LangGraph's `BaseStore` over any `MemoryStore` (local or `connect()`), with edgemem's vector, lexical and hybrid search. */
import type { EmbeddingsInterface } from '@langchain/core/embeddings';
import {
  BaseStore,
  validateNamespace,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchItem,
  type SearchOperation,
} from '@langchain/langgraph-checkpoint';
import { EdgememError } from '../errors.js';
import type { AsOf, JsonValue, MemoryInput, MemoryStore, Namespace, SearchMode } from '../types.js';
import { toConditions } from './filters.js';
import { textsAtPath } from './field-paths.js';

/** What the store indexes for search: LangGraph's `IndexConfig`. */
export interface EdgememIndexConfig {
  /** Must equal the edgemem store's `dims`. */
  dims: number;
  /** Embeds the indexed texts (`embedDocuments`) and queries (`embedQuery`). */
  embeddings: EmbeddingsInterface;
  /** Which parts of a value to index, in LangGraph's path syntax (default `["$"]`: the whole value). */
  fields?: string[];
}

export interface EdgememStoreOptions {
  /** Vector search over the fields' texts. Without it, a query searches the same texts lexically (BM25). */
  index?: EdgememIndexConfig;
  /** How a search with a query ranks when there is an index (default `'hybrid'`: vectors and BM25 fused). */
  searchMode?: SearchMode;
}

/** A search operation with what edgemem adds: the ranking and a point in the past. */
export interface EdgememSearchOperation extends SearchOperation {
  mode?: SearchMode;
  asOf?: AsOf;
}

/** `search` options: LangGraph's, plus `mode` and `asOf`. */
export interface EdgememSearchOptions {
  filter?: Record<string, unknown>;
  limit?: number;
  offset?: number;
  query?: string;
  mode?: SearchMode;
  asOf?: AsOf;
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
  return { namespace: m.namespace, key: m.key, value: m.value as Record<string, unknown>, createdAt: new Date(m.createdAt), updatedAt: new Date(m.updatedAt) };
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

  constructor(store: MemoryStore, options: EdgememStoreOptions = {}) {
    super();
    this.store = store;
    this.#index = options.index;
    this.#mode = options.searchMode ?? 'hybrid';
  }

  /** LangGraph's `search`, plus `mode` (vector, lexical or hybrid) and `asOf` (the store as it was then). */
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
      const page = await this.store.list({ prefix: op.namespacePrefix, valueFilter, offset, limit, asOf: op.asOf });
      return page.items.slice(0, limit).map((m) => ({ ...item(m), score: undefined }));
    }
    const mode = op.mode ?? (this.#index ? this.#mode : 'lexical');
    const vector = mode === 'lexical' ? undefined : await this.#embedQuery(op.query);
    const hits = await this.store.search({
      mode,
      text: mode === 'vector' ? undefined : op.query,
      vector,
      k: limit,
      offset,
      namespace: op.namespacePrefix,
      valueFilter,
      asOf: op.asOf,
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

  async #embedQuery(query: string): Promise<number[]> {
    if (!this.#index) throw new EdgememError('INVALID_ARGUMENT', 'EdgememStore: vector and hybrid search need an `index` with embeddings');
    return this.#index.embeddings.embedQuery(query);
  }

  /** Applies a batch's puts: the texts of each value's indexed fields, embedded together, then one putBatch; deletes last. */
  async #write(ops: PutOperation[]): Promise<void> {
    const inputs: MemoryInput[] = [];
    const toEmbed: { input: MemoryInput; text: string }[] = [];
    const deletes: PutOperation[] = [];
    for (const op of ops) {
      if (op.value === null) {
        deletes.push(op);
        continue;
      }
      const input: MemoryInput = { namespace: op.namespace, key: op.key, value: op.value as JsonValue };
      if (op.index !== false) {
        const fields = op.index ?? this.#index?.fields ?? ['$'];
        const texts = fields.flatMap((f) => textsAtPath(op.value, f));
        if (texts.length > 0) {
          input.text = texts.join('\n');
          if (this.#index) toEmbed.push({ input, text: input.text });
        }
      }
      inputs.push(input);
    }
    if (toEmbed.length > 0 && this.#index) {
      const vectors = await this.#index.embeddings.embedDocuments(toEmbed.map((e) => e.text));
      toEmbed.forEach((e, i) => {
        const v = vectors[i];
        if (!v || v.length !== this.#index!.dims) {
          throw new EdgememError('DIMENSION_MISMATCH', `EdgememStore: the embeddings gave ${v?.length ?? 0} dimensions, index.dims is ${this.#index!.dims}`);
        }
        e.input.embedding = v;
      });
    }
    if (inputs.length > 0) await this.store.putBatch(inputs);
    for (const op of deletes) {
      try {
        await this.store.delete(op.namespace, op.key);
      } catch (e) {
        if (!(e instanceof EdgememError && e.code === 'NOT_FOUND')) throw e;
      }
    }
  }
}
