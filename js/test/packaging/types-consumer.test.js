// @ts-check
// The tarball installed into a TypeScript project (fixtures/types-consumer) that imports every public entry
// (`edgemem`, `/protocol`, `/remote`, `/mcp`, `/testing`; `/mcp` with its peers, the MCP SDK and zod, installed) and type-checks with skipLibCheck off under both module resolutions
// users have: `bundler` must pick the default entry's types (dist/entries/default.d.ts) and `node16` the Node entry's
// (dist/entries/node.d.ts); an internal module outside `exports` must not resolve (the fixture expects that error).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { installConsumer, repoRoot, run } from './consumer.js';

const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');

describe('a TypeScript consumer', () => {
  /** @type {string} */
  let dir;
  before(() => {
    dir = installConsumer('types-consumer');
  });

  /** The files tsc read for a config; it throws with tsc's output on a type error. */
  const check = (/** @type {string} */ config) =>
    run(process.execPath, [tsc, '-p', config, '--listFiles', '--typeRoots', join(repoRoot, 'node_modules', '@types')], {
      cwd: dir,
    })
      .split('\n')
      .map((l) => l.trim().split('\\').join('/'));

  it('type-checks under moduleResolution bundler, against the default entry', () => {
    const files = check('tsconfig.bundler.json');
    assert.ok(
      files.some((f) => f.endsWith('node_modules/edgemem/dist/entries/default.d.ts')),
      'dist/entries/default.d.ts not read',
    );
    assert.ok(
      !files.some((f) => f.endsWith('node_modules/edgemem/dist/entries/node.d.ts')),
      'bundler resolved the node entry',
    );
    for (const entry of ['protocol/index.d.ts', 'remote/index.d.ts', 'mcp/index.d.ts', 'testing/index.d.ts']) {
      assert.ok(
        files.some((f) => f.endsWith(`node_modules/edgemem/dist/${entry}`)),
        `${entry} not read`,
      );
    }
  });

  it('type-checks under moduleResolution node16, against the Node entry', () => {
    const files = check('tsconfig.node16.json');
    assert.ok(
      files.some((f) => f.endsWith('node_modules/edgemem/dist/entries/node.d.ts')),
      'dist/entries/node.d.ts not read',
    );
    for (const entry of ['protocol/index.d.ts', 'remote/index.d.ts', 'mcp/index.d.ts', 'testing/index.d.ts']) {
      assert.ok(
        files.some((f) => f.endsWith(`node_modules/edgemem/dist/${entry}`)),
        `${entry} not read`,
      );
    }
  });
});
