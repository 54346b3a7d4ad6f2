/**
 * vitest-pool-workers: the test files run inside workerd with the Worker and its Durable Object (test-only
 * wrangler config). The root is the repository, not workers/: the pool resolves `.wasm` modules relative to
 * the root, and the edgemem package (with its .wasm) lives in ../js.
 */
import { fileURLToPath } from 'node:url';
import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('..'),
  plugins: [
    cloudflareTest({
      wrangler: { configPath: here('./test/wrangler.test.jsonc') },
      miniflare: { cf: false },
    }),
  ],
  test: {
    include: ['workers/test/**/*.test.ts'],
    // An OpenAI-compatible embeddings endpoint on a local port for agents with an embedder (agent-embedder.test.ts).
    globalSetup: [here('./test/embeddings-endpoint.mjs')],
    // Generous: a loaded 2-core machine runs workerd's first requests slowly (a hook's token mints timed out at 10 s).
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
