// @ts-check
// The tarball installed into a plain Node ESM project (fixtures/node-consumer): the `node` entry opens
// memory and file stores, a file store persists across a reopen, errors are EdgememErrors with codes,
// and the project type-checks against the shipped declarations.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { installConsumer, repoRoot, run } from './consumer.js';

describe('a Node ESM consumer', () => {
  /** @type {string} */
  let dir;
  before(() => {
    dir = installConsumer('node-consumer');
  });

  it('runs the smoke test against the installed package', () => {
    const out = run(process.execPath, ['smoke.js'], { cwd: dir });
    const result = JSON.parse(out.trim().split('\n').pop() ?? '');
    const error = (/** @type {string} */ code) => ({ isError: true, isEdgememError: true, name: 'EdgememError', code });
    assert.deepEqual(result, {
      entry: 'dist/entries/node.js',
      ack: { seq: 1, version: 1 },
      reopened: { likes: 'oat milk' },
      hits: ['coffee', 'tea'],
      memories: 2,
      seq: 2,
      inMemory: 'in memory',
      errors: [error('NOT_FOUND'), error('DIMENSION_MISMATCH')],
      deepImport: 'ERR_PACKAGE_PATH_NOT_EXPORTED',
    });
  });

  it('type-checks against the shipped .d.ts files (skipLibCheck off)', () => {
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    run(process.execPath, [tsc, '-p', 'tsconfig.json', '--typeRoots', join(repoRoot, 'node_modules', '@types')], {
      cwd: dir,
    });
  });
});
