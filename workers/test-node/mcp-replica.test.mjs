// @ts-check
/**
 * `npx edgemem mcp --replica FILE --url … --agent … --token …`: an MCP server over stdio whose store is a live local
 * replica of an agent on the Worker (under Miniflare). It recalls from the replica and remembers into it; with the
 * Worker gone it goes on offline from the file; back online, what it remembered offline reaches the agent.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connect, createAgent, mintToken } from 'edgemem';
import { CLI, cliJson } from '../../js/test/cli/cli-run.js';
import { bundleWorker, startWorker } from '../harness/miniflare.mjs';

const ADMIN = 'mcp-replica-admin';
const dir = mkdtempSync(join(tmpdir(), 'edgemem-mcp-replica-'));
const bundle = join(dir, 'bundle');
const state = join(dir, 'state');
/** @type {{ mf: import('miniflare').Miniflare, url: string } | undefined} */
let server;
after(async () => {
  await server?.mf.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** An MCP client of `edgemem mcp` over stdio with `args`. @param {string[]} args */
async function mcpClient(args) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    env: getDefaultEnvironment(),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'edgemem-replica-test', version: '0' });
  await client.connect(transport);
  return client;
}

/** @param {Client} client @param {string} name @param {Record<string, unknown>} args */
async function call(client, name, args) {
  const r = await client.callTool({ name, arguments: args });
  const text = /** @type {{ text?: string }[]} */ (r.content).map((c) => c.text ?? '').join('');
  assert.notEqual(r.isError, true, text);
  return JSON.parse(text);
}

it('serves a replica of a remote agent: recalls locally, remembers offline, pushes when back', async () => {
  bundleWorker(bundle, join(dir, 'config'));
  server = await startWorker({ bundle, bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' }, persist: state });
  const { url } = server;
  const port = Number(new URL(url).port);
  await createAgent({ url, adminToken: ADMIN, agent: 'ada' });
  const { token } = await mintToken({ url, adminToken: ADMIN, agent: 'ada', scopes: ['read', 'write', 'subscribe'] });
  const remote = await connect({ url, agent: 'ada', token });
  await remote.put({
    namespace: ['memories'],
    key: 'tea',
    value: 'Ada drinks green tea',
    text: 'Ada drinks green tea',
  });
  await remote.close();
  const file = join(dir, 'ada-replica.db');
  const args = ['--replica', file, '--url', url, '--agent', 'ada', '--token', token];

  let client = await mcpClient(args);
  const found = await call(client, 'recall', { query: 'green tea' });
  assert.equal(JSON.stringify(found).includes('Ada drinks green tea'), true);
  await call(client, 'remember', { text: 'Ada lives in Lisbon', key: 'city' });
  await client.close();
  assert.equal((await cliJson(['stats', '--url', url, '--agent', 'ada', '--token', token])).memories, 2);

  // The Worker goes away: the replica answers from its file and takes writes.
  await server.mf.dispose();
  server = undefined;
  client = await mcpClient(args);
  const offline = await call(client, 'recall', { query: 'Lisbon' });
  assert.equal(JSON.stringify(offline).includes('Ada lives in Lisbon'), true);
  await call(client, 'remember', { text: 'Ada is learning Portuguese', key: 'language' });
  await client.close();

  // Back on the same address: the next open pushes what was remembered offline.
  server = await startWorker({ bundle, bindings: { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' }, persist: state, port });
  const stats = await cliJson(['stats', ...args]);
  assert.equal(stats.memories, 3);
  const there = await connect({ url, agent: 'ada', token });
  assert.equal((await there.get(['memories'], 'language'))?.value, 'Ada is learning Portuguese');
  await there.close();
});
