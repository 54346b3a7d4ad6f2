// @ts-check
// The tarball installed with LangGraph (its optional peers) into a Node ESM project (fixtures/langgraph-consumer):
// the `edgemem/langgraph` subpath resolves to the shipped file, a StateGraph resumes its state from EdgememSaver
// over a file store after a reopen, and EdgememStore searches.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { installConsumer, run } from './consumer.js';

describe('a LangGraph consumer', () => {
  /** @type {string} */
  let dir;
  before(() => {
    dir = installConsumer('langgraph-consumer');
  });

  it('imports edgemem/langgraph from the installed package and runs a graph over it', () => {
    const out = run(process.execPath, ['smoke.js'], { cwd: dir });
    assert.deepEqual(JSON.parse(out.trim().split('\n').pop() ?? ''), {
      entry: 'dist/langgraph/index.js',
      turns: ['turn 1', 'turn 2'],
      checkpoints: [4, 3, 2, 1, 0, -1], // newest first, both runs' steps on one thread
      hits: ['coffee'],
    });
  });
});
