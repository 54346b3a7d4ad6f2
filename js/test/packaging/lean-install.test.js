// @ts-check
// What `npm install edgemem` brings into an empty project: the package alone (no dependency that only the command
// line or the MCP server uses), and yet `npx edgemem stats` and `npx edgemem mcp` work there. A Vite browser app
// importing only `openStore`, and a Worker importing only `connect` (edgemem/remote), build without any of the
// command line's or the MCP server's code; the Worker's bundle holds no engine either.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
// The counting the size bench reports (size.package): the same figures, one definition.
import { bytesUnder, packagesIn } from '../../../bench/node/package-size.mjs';
import { installConsumer, repoRoot, run } from './consumer.js';
import { bundleWorkerConsumer } from './worker-bundle.js';

/**
 * Runs `npx edgemem mcp --store FILE` in `cwd`, sends MCP's `initialize`, and resolves with its first answer.
 * @param {string} cwd @param {string} file
 */
function mcpInitialize(cwd, file) {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['edgemem', 'mcp', '--store', file], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`no answer to initialize in 60 s; stderr: ${err}`));
    }, 60_000);
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.trim());
      if (line && out.includes('\n')) {
        clearTimeout(timer);
        child.stdin.end();
        resolve(JSON.parse(line));
      }
    });
    child.on('error', reject);
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'packaging-test', version: '1' },
        },
      })}\n`,
    );
  });
}

describe('npm install edgemem, into an empty project', () => {
  const dir = installConsumer('lean-consumer');

  it('installs the package alone: no dependency of the command line or the MCP server', () => {
    const packages = packagesIn(join(dir, 'node_modules'));
    console.log(
      `npm install edgemem: ${packages.length} package(s) (${packages.join(', ')}), ` +
        `${bytesUnder(join(dir, 'node_modules'))} bytes in node_modules`,
    );
    assert.ok(packages.length <= 3, `at most 3 packages, got ${packages.join(', ')}`);
    for (const name of ['@modelcontextprotocol/sdk', 'commander', 'cli-progress', 'zod', 'express']) {
      assert.ok(!packages.includes(name), `${name} installed`);
    }
  });

  it('runs npx edgemem put, get and stats on a store file', () => {
    const npx = (/** @type {string[]} */ ...args) =>
      run('npx', ['edgemem', ...args, '--store', 'agent.db'], { cwd: dir });
    npx('put', 'user/42', 'coffee', '{"pref":"oat"}', '--text', 'Prefers oat milk');
    assert.deepEqual(JSON.parse(npx('get', 'user/42', 'coffee', '--json')).value, { pref: 'oat' });
    const stats = JSON.parse(npx('stats', '--json'));
    assert.equal(stats.memories, 1);
  });

  it('serves MCP with npx edgemem mcp (initialize answered over stdio)', async () => {
    const answer = /** @type {any} */ (await mcpInitialize(dir, 'agent.db'));
    assert.equal(answer.id, 1);
    assert.equal(answer.result.serverInfo.name, 'edgemem');
  });
});

describe('a Vite browser app that imports only openStore', () => {
  it('builds, with none of the command line or the MCP server in it', () => {
    const app = installConsumer('browser-consumer');
    const vite = join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js');
    run(process.execPath, [vite, 'build', '--logLevel', 'warn', '--outDir', 'dist'], { cwd: app, timeoutMs: 120_000 });
    const assets = readdirSync(join(app, 'dist', 'assets'));
    const js = assets.filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(app, 'dist', 'assets', f)));
    assert.ok(js.length > 0, `no JavaScript in ${assets.join(', ')}`);
    assert.ok(
      assets.some((f) => f.endsWith('.wasm')),
      `the engine's .wasm is emitted beside the bundle: ${assets.join(', ')}`,
    );
    const text = js.map(String).join('\n');
    assert.doesNotMatch(text, /modelcontextprotocol|CommanderError|cli-progress/);
    const gzip = js.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0);
    console.log(`browser bundle importing only openStore: ${gzip} bytes gzip -9 (the engine's .wasm apart)`);
  });
});

describe('a Worker that imports only connect (edgemem/remote)', () => {
  it('bundles with wrangler without the engine, the command line or the MCP server', () => {
    const { out } = bundleWorkerConsumer('remote-worker-consumer');
    const files = readdirSync(out);
    assert.ok(!files.some((f) => f.endsWith('.wasm')), `no .wasm module: ${files.join(', ')}`);
    const bundle = readFileSync(join(out, 'index.js'), 'utf8');
    assert.match(bundle, /\/\/ node_modules\/edgemem\/dist\/remote\/index\.js/);
    assert.doesNotMatch(bundle, /\/\/ node_modules\/edgemem\/dist\/(local|pages|entries|mcp|cli)\//);
    assert.doesNotMatch(bundle, /\/\/ node_modules\/(@modelcontextprotocol|commander|cli-progress|zod)\//);
    console.log(`Worker bundle importing only connect: ${gzipSync(bundle, { level: 9 }).length} bytes gzip -9`);
  });
});
