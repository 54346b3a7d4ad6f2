#!/usr/bin/env node
// The local embeddings endpoint `npm start` runs beside the Worker: serves the built-in embedder (`e5()` from the
// edgemem-e5 package, multilingual-e5-small 4-bit) as an OpenAI-compatible POST /v1/embeddings on 127.0.0.1 with
// edgemem's serveEmbeddings, so the local Worker's agents embed text with no API key. Prints one line
// `edgemem-embeddings ready {"url","id","dims","normalized"}` once it listens; exits 3 when the built-in embedder
// cannot be loaded (edgemem-e5 not built), so scripts/start can go on without it.
//
//   node scripts/local-embeddings.mjs [port]      # default 8788
import { serveEmbeddings } from 'edgemem';

const port = Number(process.argv[2] ?? 8788);
let embedder;
try {
  const name = 'edgemem-e5'; // a variable: resolved at run time, the package is optional
  const { e5 } = await import(name);
  embedder = await e5();
} catch (e) {
  console.error(
    `local-embeddings: the built-in embedder (edgemem-e5) could not be loaded: ${e instanceof Error ? e.message : e}`,
  );
  process.exit(3);
}
const server = await serveEmbeddings(embedder, { port });
console.log(
  `edgemem-embeddings ready ${JSON.stringify({ url: server.url, id: embedder.id, dims: embedder.dims, normalized: embedder.normalized })}`,
);
const stop = async () => {
  await server.close();
  embedder.close?.();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
