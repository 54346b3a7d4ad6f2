// @ts-check
/**
 * The command line (`edgemem`, js/dist/cli/main.js) against the Worker under Miniflare: the shared CLI suite on
 * fresh agents (every store command, export from one agent and import into another), then what only a remote
 * agent has — `token` minting scoped tokens, the Worker's auth codes as exit codes, and `tail` following the feed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createAgent } from 'edgemem';
import { cliCoherenceSuite } from '../../js/test/cli/cli-coherence-suite.js';
import { CLI, cli, cliFails, cliJson, startCli } from '../../js/test/cli/cli-run.js';
import { cliSuite } from '../../js/test/cli/cli-suite.js';
import { testWorker } from './test-worker.mjs';

const ADMIN = 'cli-remote-admin';
const worker = testWorker('edgemem-cli-remote', { ADMIN_TOKEN: ADMIN, EDGEMEM_DIMS: '0' });

let n = 0;
/**
 * A new agent with `dims` and a token for it minted by `edgemem token`; the target names the Worker and the agent
 * by options and passes the token in EDGEMEM_TOKEN.
 * @param {number} [dims]
 * @param {string} [scopes]
 */
async function freshAgent(dims = 0, scopes = 'read,write,subscribe') {
  const agent = `cli-${process.pid}-${n++}`;
  await createAgent({ url: worker().url, adminToken: ADMIN, agent, settings: { dims } });
  const minted = await cliJson(['token', '--agent', agent, '--scopes', scopes, '--ttl', '600'], {
    env: { EDGEMEM_URL: worker().url, EDGEMEM_ADMIN_TOKEN: ADMIN },
  });
  return { agent, args: ['--url', worker().url, '--agent', agent], env: { EDGEMEM_TOKEN: minted.token } };
}

cliSuite('remote agent (Worker under Miniflare)', (dims) => freshAgent(dims));
cliCoherenceSuite('remote agent (Worker under Miniflare)', (dims) => freshAgent(dims));

describe('edgemem CLI: remote only', () => {
  it('token mints a scoped token (table and --json); the auth codes are exit codes', async () => {
    const { agent, args } = await freshAgent();
    const admin = ['--url', worker().url, '--admin-token', ADMIN, '--agent', agent];
    const minted = await cliJson(['token', ...admin, '--scopes', 'read', '--ttl', '60']);
    assert.deepEqual([minted.agent, minted.scopes], [agent, ['read']]);
    assert.ok(minted.expiresAt > Date.now() && minted.expiresAt <= Date.now() + 61_000);
    const table = await cli(['token', ...admin]);
    assert.equal(table.status, 0, table.stderr);
    assert.match(table.stdout, /^token\s+eyJ\S+$/m);
    assert.match(table.stdout, /^scopes\s+read,write,subscribe$/m);

    const readOnly = { env: { EDGEMEM_TOKEN: minted.token } };
    assert.equal((await cliJson(['stats', ...args], readOnly)).seq, 0);
    await cliFails(['put', 'a', 'k', '1', ...args], 'FORBIDDEN', 11, readOnly);
    await cliFails(['stats', ...args, '--token', 'forged'], 'UNAUTHORIZED', 10);
    await cliFails(['token', '--url', worker().url, '--admin-token', minted.token, '--agent', agent], 'FORBIDDEN', 11);
    await cliFails(['token', '--url', worker().url, '--agent', agent], 'INVALID_ARGUMENT', 2);
    await cliFails(['token', ...admin, '--scopes', 'read,admin'], 'INVALID_ARGUMENT', 2);
  });

  it('tail follows the feed live (and from --since), one line per event, until SIGINT', async () => {
    const t = await freshAgent();
    await cliJson(['put', 'notes', 'old', '1', ...t.args], { env: t.env });

    /** @type {ReturnType<typeof startCli>[]} */
    const children = [];
    try {
      const live = startCli(['tail', ...t.args], { env: t.env });
      children.push(live);
      await live.waitFor('stderr', /following agent/);
      await cliJson(['put', 'notes', 'new', '"hi"', ...t.args], { env: t.env });
      await live.waitFor('stdout', /\tput\tnotes new v1\n/);
      live.child.kill('SIGINT');
      const ended = await live.done;
      assert.equal(ended.status, 0, ended.stderr);
      assert.doesNotMatch(ended.stdout, /notes old/); // from now: no replay without --since

      const replay = startCli(['tail', '--since', '0', '--json', '--prefix', 'notes', ...t.args], { env: t.env });
      children.push(replay);
      await replay.waitFor('stderr', /following agent/);
      await cliJson(['put', 'other', 'x', '2', ...t.args], { env: t.env });
      await cliJson(['put', 'notes', 'newer', '3', ...t.args], { env: t.env });
      await replay.waitFor('stdout', /"newer"/);
      replay.child.kill('SIGTERM');
      const out = await replay.done;
      assert.equal(out.status, 0, out.stderr);
      const events = out.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepEqual(
        events.map((e) => [e.seq, e.key]),
        [
          [1, 'old'],
          [2, 'new'],
          [4, 'newer'],
        ],
      );
    } finally {
      // A failed wait leaves a `tail` running: it would retry its socket for as long as the run lasts.
      for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
    }
  });

  it('mcp serves a remote agent over stdio: the SDK client writes the graph there, the CLI reads it back', async () => {
    const t = await freshAgent();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', ...t.args],
      env: { ...getDefaultEnvironment(), ...t.env },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'edgemem-cli-test', version: '0' });
    await client.connect(transport);
    try {
      const entities = [{ name: 'Ada', entityType: 'person', observations: ['drinks green tea'] }];
      const created = await client.callTool({ name: 'create_entities', arguments: { entities } });
      assert.equal(created.isError, undefined);
      const found = await client.callTool({ name: 'search_nodes', arguments: { query: 'green tea' } });
      const text = /** @type {{ text: string }[]} */ (found.content)[0]?.text ?? '';
      assert.deepEqual(
        JSON.parse(text).entities.map((/** @type {{ name: string }} */ e) => e.name),
        ['Ada'],
      );
    } finally {
      await client.close();
    }
    const stats = await cliJson(['stats', ...t.args], { env: t.env });
    assert.equal(stats.memories, 1);
  });
});
