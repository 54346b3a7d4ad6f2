// @ts-check
/**
 * The Worker's MCP endpoint over a coherent memory (the bundled Worker under Miniflare, the SDK's client over
 * Streamable HTTP): `remember` answers with its decision and the memory concerned, as the agent's Durable Object
 * decided it; `recall` answers with what is true now or at `validAt`; `context` returns the prompt-ready block; a
 * read-only token is offered `context` but not `remember`.
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

const ADMIN = 'mcp-coherence-admin';
const dir = mkdtempSync(join(tmpdir(), 'edgemem-mcp-coherence-'));
const bundle = join(dir, 'bundle');
/** @type {{ mf: import('miniflare').Miniflare, url: string } | undefined} */
let server;

before(async () => {
  bundleWorker(bundle, join(dir, 'config'));
  server = await startWorker({ bundle, bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' } });
});
after(async () => {
  await server?.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** @param {string} agent @param {string} token */
async function connectMcp(agent, token) {
  const transport = new StreamableHTTPClientTransport(new URL(`/v1/agents/${agent}/mcp`, server?.url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'edgemem-test', version: '0' });
  await client.connect(transport);
  return client;
}

/** @param {Client} client @param {string} name @param {Record<string, unknown>} args */
async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  const text = /** @type {{ text?: string }[]} */ (r.content).map((c) => c.text ?? '').join('');
  if (r.isError) return { error: text, text, json: undefined, structured: undefined };
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { error: undefined, text, json, structured: /** @type {any} */ (r.structuredContent) };
}

describe("the Worker's MCP tools over a coherent memory", () => {
  it('remember decides (new, duplicate, supersede); recall takes validAt; context returns the block', async () => {
    const client = await connectMcp('coherent', ADMIN);
    const ns = ['user', 'ana'];
    const first = await call(client, 'remember', { text: 'Ana lives in Porto.', namespace: ns });
    assert.equal(first.error, undefined, first.text);
    assert.equal(first.json.decision, 'new');
    const again = await call(client, 'remember', { text: 'ana lives in porto', namespace: ns });
    assert.deepEqual([again.json.decision, again.json.key], ['duplicate', first.json.key]);
    const moved = await call(client, 'remember', { text: 'Ana now lives in Lisbon.', namespace: ns });
    assert.deepEqual([moved.json.decision, moved.json.target?.key], ['supersede', first.json.key]);
    await call(client, 'remember', { text: "The user's name is Ana", namespace: ns, pinned: true });

    const now = await call(client, 'recall', { query: 'Porto Lisbon', namespace: ns });
    assert.deepEqual(
      now.json.memories.map((/** @type {any} */ m) => m.text),
      ['Ana now lives in Lisbon.'],
    );
    const any = await call(client, 'recall', { query: 'Porto Lisbon', namespace: ns, validAt: 'any' });
    assert.equal(any.json.memories.length, 2);

    const c = await call(client, 'context', { query: 'where does Ana live', namespaces: [ns] });
    assert.equal(c.error, undefined, c.text);
    assert.match(c.text, /## Pinned\n- The user's name is Ana/);
    assert.match(c.text, /## Relevant facts\n- Ana now lives in Lisbon/);
    assert.doesNotMatch(c.text, /## Relevant facts\n(- .*\n)*- Ana lives in Porto/);
    assert.equal(c.structured?.text, c.text);
    assert.ok(c.structured?.tokens <= 1000);
    await client.close();
  });

  it('a read-only token is offered context and recall, not remember', async () => {
    const { token } = await mintToken({
      url: /** @type {string} */ (server?.url),
      adminToken: ADMIN,
      agent: 'coherent',
      scopes: ['read'],
    });
    const client = await connectMcp('coherent', token);
    const names = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes('context') && names.includes('recall'), names.join());
    assert.ok(!names.includes('remember'));
    assert.match((await call(client, 'context', { query: 'Ana' })).text, /Lisbon/);
    await client.close();
  });
});
