// @ts-check
/**
 * vitest for edgemem/langgraph: LangGraph's checkpointer validation suite (written for vitest, with its
 * globals) against EdgememSaver on each kind of store, the EdgememStore suite, and the examples.
 * Run by scripts/test-langgraph against the built package (js/dist).
 */
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globals: true,
    include: ['js/test/langgraph/**/*.test.ts'],
    root: new URL('../../..', import.meta.url).pathname,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The Worker under Miniflare and the stores' wasm: one file at a time on a small machine.
    fileParallelism: false,
  },
});
