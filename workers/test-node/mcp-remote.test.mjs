// @ts-check
/**
 * The Worker's MCP endpoint (`POST /v1/agents/{agent}/mcp`, Streamable HTTP) through the SDK's own client, on the
 * bundled Worker under Miniflare on a real port: the drop-in graph tools and edgemem's own, the stats resource,
 * what a read-only token is offered and may call, a token for another agent refused, and a client that goes on
 * across a restart of the whole runtime (the endpoint keeps no session in memory, so an evicted or hibernated
 * agent answers the next request as if nothing happened).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mintToken } from 'edgemem';
import { bundleWorker, startWorker } from '../harness/miniflare.mjs';

const ADMIN = 'mcp-test-admin';
const dir = mkdtempSync(join(tmpdir(), 'edgemem-mcp-'));
const bundle = join(dir, 'bundle');
const state = join(dir, 'state');
/** @type {{ mf: import('miniflare').Miniflare, url: string } | undefined} */
let server;
const start = () => startWorker({ bundle, bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' }, persist: state });

before(async () => {
  bundleWorker(bundle, join(dir, 'config'));
  server = await start();
});
after(async () => {
  await server?.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** @param {string} agent @param {string} token */
async function connectMcp(agent, token) {
  if (!server) throw new Error('the Worker is not running');
  const base = server.url;
  const transport = new StreamableHTTPClientTransport(new URL(`/v1/agents/${agent}/mcp`, base), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    // The URL is read at each request, so a restarted runtime (another port) is reached too.
    fetch: (url, init) => fetch(new URL(new URL(String(url)).pathname, server?.url ?? base), init),
  });
  const client = new Client({ name: 'edgemem-test', version: '0' });
  await client.connect(transport);
  return Object.assign(client, { http: transport });
}

/** @param {Client} client @param {string} name @param {Record<string, unknown>} args */
async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  const text = /** @type {{ text?: string }[]} */ (r.content).map((c) => c.text ?? '').join('');
  return { isError: r.isError === true, text, json: r.isError ? undefined : JSON.parse(text) };
}

const READ_TOOLS = ['changes', 'context', 'history', 'open_nodes', 'read_graph', 'recall', 'search_nodes'];
const WRITE_TOOLS = [
  'add_observations',
  'create_entities',
  'create_relations',
  'delete_entities',
  'delete_observations',
  'delete_relations',
  'forget',
  'remember',
];

describe('the Worker serves MCP at /v1/agents/{agent}/mcp', () => {
  it('offers every tool to a writer; graph and memory tools work over the agent', async () => {
    const client = await connectMcp('mcp-a', ADMIN);
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(tools, [...READ_TOOLS, ...WRITE_TOOLS].sort());
    const created = await call(client, 'create_entities', {
      entities: [
        { name: 'Ada', entityType: 'person', observations: ['writes programs for the analytical engine'] },
        { name: 'Engine', entityType: 'machine', observations: [] },
      ],
    });
    assert.equal(created.json.length, 2);
    await call(client, 'create_relations', { relations: [{ from: 'Ada', to: 'Engine', relationType: 'programs' }] });
    const found = await call(client, 'search_nodes', { query: 'analytical' });
    assert.deepEqual(
      found.json.entities.map((/** @type {{ name: string }} */ e) => e.name),
      ['Ada'],
    );
    const graph = await call(client, 'read_graph', {});
    assert.deepEqual(graph.json.relations, [{ from: 'Ada', to: 'Engine', relationType: 'programs' }]);

    const remembered = await call(client, 'remember', {
      text: 'Prefers oat milk flat whites',
      namespace: ['user', '42'],
    });
    assert.equal(remembered.isError, false, remembered.text);
    const recalled = await call(client, 'recall', { query: 'milk' });
    assert.match(recalled.text, /oat milk/);
    const stats = await client.readResource({ uri: 'edgemem://stats' });
    const counts = JSON.parse(/** @type {{ text: string }} */ (stats.contents[0]).text);
    assert.ok(counts.memories >= 4, JSON.stringify(counts));
    await client.close();
  });

  it('a read-only token is offered only the read tools, and cannot call the others', async () => {
    const { token } = await mintToken({
      url: /** @type {string} */ (server?.url),
      adminToken: ADMIN,
      agent: 'mcp-a',
      scopes: ['read'],
    });
    const client = await connectMcp('mcp-a', token);
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(tools, READ_TOOLS);
    const refused = await client
      .callTool({ name: 'create_entities', arguments: { entities: [] } })
      .catch((/** @type {Error} */ e) => ({ isError: true, content: [{ text: e.message }] }));
    assert.equal(refused.isError, true);
    assert.equal((await call(client, 'read_graph', {})).json.entities.length, 2);
    await client.close();
  });

  it("a token for another agent never reaches this one's MCP", async () => {
    const { token } = await mintToken({
      url: /** @type {string} */ (server?.url),
      adminToken: ADMIN,
      agent: 'mcp-b',
      scopes: ['read', 'write'],
    });
    await assert.rejects(connectMcp('mcp-a', token), /403|Forbidden|FORBIDDEN/);
    const res = await fetch(new URL('/v1/agents/mcp-a/mcp', server?.url), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(res.status, 403);
    assert.equal((await res.json()).error.code, 'FORBIDDEN');
  });

  it('a session goes on across a restart of the runtime: its signed id is checked, nothing was in memory', async () => {
    const client = await connectMcp('mcp-c', ADMIN);
    const session = client.http.sessionId;
    assert.ok(session, 'initialize answered with an Mcp-Session-Id');
    await call(client, 'remember', { text: 'the launch code is in the blue folder', key: 'launch' });
    await server?.mf.dispose();
    server = await start();
    const recalled = await call(client, 'recall', { query: 'launch code' });
    assert.match(recalled.text, /blue folder/);
    assert.equal(client.http.sessionId, session);
    await client.close();
  });

  it("a forged, or another agent's, session id is 404 NOT_FOUND (the client initializes again)", async () => {
    const client = await connectMcp('mcp-d', ADMIN);
    const session = /** @type {string} */ (client.http.sessionId);
    await client.close();
    const post = (/** @type {string} */ agent, /** @type {string} */ id) =>
      fetch(new URL(`/v1/agents/${agent}/mcp`, server?.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'mcp-session-id': id },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    assert.equal((await post('mcp-d', session)).status, 200);
    for (const [agent, id] of [
      ['mcp-e', session],
      ['mcp-d', `${session.slice(0, -2)}xx`],
      ['mcp-d', 'nope'],
    ]) {
      const res = await post(/** @type {string} */ (agent), /** @type {string} */ (id));
      assert.equal(res.status, 404);
      assert.equal((await res.json()).error.code, 'NOT_FOUND');
    }
    // A session id is no bearer token.
    const asToken = await fetch(new URL('/v1/agents/mcp-d/stats', server?.url), {
      headers: { authorization: `Bearer ${session}` },
    });
    assert.equal(asToken.status, 401);
  });

  it('what is not MCP JSON-RPC gets the API coded 400; GET is 405 (no server stream)', async () => {
    const url = new URL('/v1/agents/mcp-a/mcp', server?.url);
    const headers = { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' };
    for (const body of ['{"not":"jsonrpc"}', '[]', 'nope']) {
      const res = await fetch(url, { method: 'POST', headers, body });
      assert.equal(res.status, 400, body);
      assert.equal((await res.json()).error.code, 'INVALID_ARGUMENT');
    }
    const get = await fetch(url, { headers: { authorization: `Bearer ${ADMIN}` } });
    assert.equal(get.status, 405);
    assert.equal((await get.json()).error.code, 'INVALID_ARGUMENT');
  });
});
