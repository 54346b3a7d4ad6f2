/**
 * Vite config of the web demo: the page and its store Web Worker (ES module workers, so the worker can import
 * `edgemem` and its .wasm), `/v1` proxied to the edgemem Worker (HTTP and the WebSocket feed, so the page needs
 * no CORS), and the dev-only token endpoint (server/dev-token.ts), in both `vite` (dev) and `vite preview`.
 *
 * EDGEMEM_WORKER_URL: where the Worker runs (default http://127.0.0.1:8787, what `npm start` uses).
 *
 * Both servers keep Vite's defaults `allowedHosts` (localhost and IP addresses: another Host header gets 403, so a
 * page cannot reach them by DNS rebinding — scripts/test-start checks it) and `cors` (localhost origins only).
 */
import { defineConfig } from 'vite';
import { devToken, workerUrl } from './server/dev-token.js';

const proxy = { '/v1': { target: workerUrl(), changeOrigin: true, ws: true } };

export default defineConfig({
  clearScreen: false,
  server: { host: '127.0.0.1', proxy },
  preview: { host: '127.0.0.1', proxy },
  worker: { format: 'es' },
  build: { target: 'es2022' },
  plugins: [devToken()],
});
