// @ts-check
// The MCP server (edgemem/mcp) through the SDK's own client: the tools it lists, edgemem's own tools (remember,
// recall with filters and asOf, forget, history, changes; remember's decisions, validAt and context are in
// mcp-coherence.test.js), store errors as tool errors, the resources and their
// subscriptions (a notification after a write, none after unsubscribing), and the stdio server over a file store.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { openStore } from 'edgemem';
import { importMemoryJsonl } from 'edgemem/mcp';
import { call, connectInProcess } from './mcp-client.js';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-mcp-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const GRAPH_TOOLS = [
  'create_entities',
  'create_relations',
  'add_observations',
  'delete_entities',
  'delete_observations',
  'delete_relations',
  'read_graph',
  'search_nodes',
  'open_nodes',
];
const OWN_TOOLS = ['remember', 'recall', 'context', 'forget', 'history', 'changes'];

/**
 * Resolves with the next `n` resource-updated notifications' URIs; with fewer, once none came for `moreMs` after
 * the last, or with none after `firstMs` (a slow machine delays the first, so that wait is long unless told).
 */
function updates(/** @type {Client} */ client, n = 1, { firstMs = 10_000, moreMs = 300 } = {}) {
  /** @type {string[]} */
  const uris = [];
  return new Promise((resolve) => {
    let timer = setTimeout(() => resolve(uris), firstMs);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      uris.push(notification.params.uri);
      clearTimeout(timer);
      if (uris.length >= n) resolve(uris);
      else timer = setTimeout(() => resolve(uris), moreMs);
    });
  });
}

describe('the MCP server in-process', () => {
  it('lists the nine graph tools and the six own tools, each described, and the resources', async () => {
    const store = await openStore({});
    const client = await connectInProcess(store);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      [...GRAPH_TOOLS, ...OWN_TOOLS],
    );
    for (const t of tools) assert.ok((t.description ?? '').length > 20, `${t.name} has a description`);
    const remember = tools.find((t) => t.name === 'remember');
    assert.deepEqual(remember?.inputSchema.required, ['text']);
    const { resources } = await client.listResources();
    assert.deepEqual(resources.map((r) => r.uri).sort(), [
      'edgemem://changes',
      'edgemem://stats',
      'memory://knowledge-graph',
    ]);
    assert.equal(client.getServerCapabilities()?.resources?.subscribe, true);
    assert.match(client.getInstructions() ?? '', /recall/);
    await client.close();
    await store.close();
  });

  it('remember, recall (namespace, filter, asOf), history, forget, changes', async () => {
    const store = await openStore({});
    const client = await connectInProcess(store);
    const first = await call(client, 'remember', {
      text: 'Alice prefers oat milk in her coffee',
      namespace: ['user', 'alice'],
      key: 'coffee',
      metadata: { topic: 'food' },
    });
    assert.equal(first.error, undefined);
    assert.deepEqual(first.json, {
      decision: 'new',
      namespace: ['user', 'alice'],
      key: 'coffee',
      version: 1,
      seq: 1,
      target: null,
      reason: first.json.reason,
    });
    assert.deepEqual(first.structured, first.json);
    const second = await call(client, 'remember', {
      text: 'Alice switched to soy milk in her coffee',
      namespace: ['user', 'alice'],
      key: 'coffee',
      metadata: { topic: 'food' },
    });
    // The same key with other words: a new version of that memory, superseding the first.
    assert.deepEqual(
      [second.json.decision, second.json.key, second.json.version, second.json.target?.key],
      ['supersede', 'coffee', 2, 'coffee'],
    );
    const generated = await call(client, 'remember', {
      text: 'The deploy window is Friday afternoon',
      metadata: { topic: 'ops' },
      pinned: true,
    });
    assert.deepEqual(generated.json.namespace, ['memories']);
    assert.match(generated.json.key, /^m-[0-9a-f]{16}$/);
    const stored = await store.get(['memories'], generated.json.key);
    assert.equal(stored?.pinned, true);

    const milk = await call(client, 'recall', { query: 'milk coffee' });
    assert.deepEqual(
      milk.json.memories.map((/** @type {any} */ m) => m.text),
      ['Alice switched to soy milk in her coffee'],
    );
    const filtered = await call(client, 'recall', {
      query: 'deploy coffee',
      filter: [{ field: 'topic', op: 'eq', value: 'ops' }],
    });
    assert.deepEqual(
      filtered.json.memories.map((/** @type {any} */ m) => m.key),
      [generated.json.key],
    );
    const excluded = await call(client, 'recall', {
      query: 'deploy coffee',
      filter: [{ field: 'topic', op: 'nin', value: ['ops'] }],
    });
    assert.deepEqual(
      excluded.json.memories.map((/** @type {any} */ m) => m.key),
      ['coffee'],
    );
    const scoped = await call(client, 'recall', { query: 'deploy coffee', namespace: ['user'] });
    assert.deepEqual(
      scoped.json.memories.map((/** @type {any} */ m) => m.key),
      ['coffee'],
    );
    const then = await call(client, 'recall', { query: 'milk', asOf: { seq: 1 } });
    assert.deepEqual(
      then.json.memories.map((/** @type {any} */ m) => m.text),
      ['Alice prefers oat milk in her coffee'],
    );
    const badAsOf = await call(client, 'recall', { query: 'milk', asOf: { seq: 1, time: '2026-01-01T00:00:00Z' } });
    assert.match(badAsOf.error ?? '', /^INVALID_ARGUMENT: /);

    const history = await call(client, 'history', { namespace: ['user', 'alice'], key: 'coffee' });
    assert.deepEqual(
      history.json.versions.map((/** @type {any} */ v) => [v.version, v.seq, v.text]),
      [
        [1, 1, 'Alice prefers oat milk in her coffee'],
        [2, 2, 'Alice switched to soy milk in her coffee'],
      ],
    );
    assert.match(history.json.versions[0].createdAt, /^\d{4}-\d\d-\d\dT/);

    const forgot = await call(client, 'forget', { namespace: ['user', 'alice'], key: 'coffee' });
    assert.deepEqual(forgot.json, { forgotten: true, namespace: ['user', 'alice'], key: 'coffee', seq: 4 });
    const again = await call(client, 'forget', { namespace: ['user', 'alice'], key: 'coffee' });
    assert.match(again.error ?? '', /^NOT_FOUND: /);
    assert.deepEqual((await call(client, 'recall', { query: 'milk' })).json.memories, []);

    const changes = await call(client, 'changes', { since: 1 });
    assert.deepEqual(
      changes.json.changes.map((/** @type {any} */ e) => [e.seq, e.kind, e.key]),
      [
        [2, 'put', 'coffee'],
        [3, 'put', generated.json.key],
        [4, 'delete', 'coffee'],
      ],
    );
    assert.equal(changes.json.latestSeq, 4);
    assert.equal(changes.json.nextSince, 4);
    const paged = await call(client, 'changes', { since: 0, limit: 2, namespace: ['user'], kinds: ['put'] });
    assert.deepEqual(
      paged.json.changes.map((/** @type {any} */ e) => e.seq),
      [1, 2],
    );
    assert.equal(paged.json.nextSince, 2);
    assert.match(paged.json.changes[0].time, /Z$/);

    const invalid = await call(client, 'remember', { text: 'x', namespace: ['a'], key: '..' });
    assert.match(invalid.error ?? '', /^INVALID_ARGUMENT: /);
    const schema = await call(client, 'remember', { text: '' });
    assert.match(schema.error ?? '', /Input validation error/);
    await client.close();
    await store.close();
  });

  it('serves stats and the latest changes as resources', async () => {
    const store = await openStore({});
    const client = await connectInProcess(store);
    await call(client, 'remember', { text: 'one', key: 'a' });
    await call(client, 'create_entities', { entities: [{ name: 'E', entityType: 't', observations: [] }] });
    const stats = JSON.parse(
      /** @type {any} */ ((await client.readResource({ uri: 'edgemem://stats' })).contents[0]).text,
    );
    assert.equal(stats.seq, 2);
    assert.equal(stats.memories, 2);
    const changes = JSON.parse(
      /** @type {any} */ ((await client.readResource({ uri: 'edgemem://changes' })).contents[0]).text,
    );
    assert.equal(changes.latestSeq, 2);
    assert.deepEqual(
      changes.changes.map((/** @type {any} */ e) => e.key),
      ['a', 'E'],
    );
    const graph = JSON.parse(
      /** @type {any} */ ((await client.readResource({ uri: 'memory://knowledge-graph' })).contents[0]).text,
    );
    assert.deepEqual(graph, { entities: [{ name: 'E', entityType: 't', observations: [] }], relations: [] });
    await client.close();
    await store.close();
  });

  it('notifies subscribers when memories change (once per batch), the graph resource only for graph writes, none after unsubscribing', async () => {
    const store = await openStore({});
    const client = await connectInProcess(store);
    await client.subscribeResource({ uri: 'edgemem://changes' });
    let next = updates(client);
    await call(client, 'remember', { text: 'hello', key: 'k' });
    assert.deepEqual(await next, ['edgemem://changes']);

    // A write by another client of the same store (here: the store itself) is notified too.
    next = updates(client);
    await store.put({ namespace: ['elsewhere'], key: 'x', value: 1 });
    assert.deepEqual(await next, ['edgemem://changes']);

    // One notification for a batch of three.
    next = updates(client, 2);
    await call(client, 'create_entities', {
      entities: ['A', 'B', 'C'].map((name) => ({ name, entityType: 't', observations: [] })),
    });
    assert.deepEqual(await next, ['edgemem://changes']);

    await client.unsubscribeResource({ uri: 'edgemem://changes' });
    await client.subscribeResource({ uri: 'memory://knowledge-graph' });
    next = updates(client, 1, { firstMs: 300 });
    await call(client, 'remember', { text: 'not in the graph' });
    assert.deepEqual(await next, []);
    next = updates(client);
    await call(client, 'add_observations', { observations: [{ entityName: 'A', contents: ['new'] }] });
    assert.deepEqual(await next, ['memory://knowledge-graph']);

    await assert.rejects(client.subscribeResource({ uri: 'edgemem://stats' }), /cannot be subscribed to/);
    await client.close();
    await store.close();
  });
});

/**
 * `store` refusing what the remote store (`connect()`) refuses: batches over 100, k over 100, pages over 1000.
 * @param {import('edgemem').MemoryStore} store
 */
function withRemoteLimits(store) {
  const check = (/** @type {boolean} */ ok, /** @type {string} */ what) =>
    assert.ok(ok, `over the remote store's limit: ${what}`);
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      return (/** @type {any[]} */ ...args) => {
        if (prop === 'putBatch') check(args[0].length <= 100, `putBatch of ${args[0].length}`);
        if (prop === 'search') check((args[0].k ?? 10) <= 100, `search k ${args[0].k}`);
        if (prop === 'list') check((args[0]?.limit ?? 1000) <= 1000, `list limit ${args[0]?.limit}`);
        return value.apply(target, args);
      };
    },
  });
}

describe("the knowledge graph at scale, within the remote store's limits", () => {
  it('imports, reads, searches and cascades deletes over 250 entities and 250 relations', async () => {
    const base = await openStore({});
    const store = withRemoteLimits(base);
    const names = Array.from({ length: 250 }, (_, i) => `entity-${String(i).padStart(3, '0')}`);
    const lines = [
      ...names.map((name, i) =>
        JSON.stringify({ type: 'entity', name, entityType: i % 2 ? 'odd' : 'even', observations: [`number ${i}`] }),
      ),
      ...names.map((name) =>
        JSON.stringify({ type: 'relation', from: name, to: 'entity-000', relationType: 'points_to' }),
      ),
    ];
    assert.deepEqual(await importMemoryJsonl(store, lines.reverse().join('\n')), { entities: 250, relations: 250 });
    const client = await connectInProcess(store);
    const graph = (await call(client, 'read_graph')).json;
    assert.deepEqual(
      graph.entities.map((/** @type {any} */ e) => e.name),
      [...names].reverse(),
      'file order',
    );
    assert.equal(graph.relations.length, 250);
    const odd = (await call(client, 'search_nodes', { query: 'ODD' })).json;
    assert.equal(odd.entities.length, 125);
    assert.equal((await call(client, 'delete_entities', { entityNames: ['entity-000'] })).error, undefined);
    assert.deepEqual((await call(client, 'read_graph')).json.relations, []);
    await client.close();
    await base.close();
  });
});

describe('the stdio MCP server (runStdioMcp)', () => {
  it('serves a file store over stdin/stdout, ends when stdin does, and the store keeps what was written', async () => {
    const file = join(dir, 'stdio.db');
    const child = fileURLToPath(new URL('./mcp-stdio-child.js', import.meta.url));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [child, file],
      stderr: 'pipe',
      cwd: fileURLToPath(new URL('..', import.meta.url)),
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'edgemem-test', version: '0' });
    await client.connect(transport);
    assert.equal(client.getServerVersion()?.name, 'edgemem');
    const remembered = await call(client, 'remember', { text: 'kept across processes', key: 'k' });
    assert.equal(remembered.json.seq, 1);
    await call(client, 'create_entities', { entities: [{ name: 'Alice', entityType: 'person', observations: ['o'] }] });
    await client.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.match(
      stderr,
      /closed after stdin/,
      'the server ended on stdin end, not on the SIGTERM a client sends later',
    );

    const store = await openStore({ storage: { file } });
    assert.equal((await store.get(['memories'], 'k'))?.text, 'kept across processes');
    assert.deepEqual((await store.get(['mcp-graph', 'entities'], 'Alice'))?.value, {
      name: 'Alice',
      entityType: 'person',
      observations: ['o'],
    });
    await store.close();
  });
});

describe('edgemem/mcp is host-neutral', () => {
  it('imports nothing of Node but in stdio.js (the SDK modules it imports are web-standard too)', () => {
    const mcpDir = new URL('../../dist/mcp/', import.meta.url);
    for (const f of readdirSync(mcpDir).filter((x) => x.endsWith('.js') && x !== 'stdio.js')) {
      const src = readFileSync(new URL(f, mcpDir), 'utf8');
      assert.doesNotMatch(src, /from '(node:|stdio)|server\/stdio\.js|process\./, f);
    }
  });
});
