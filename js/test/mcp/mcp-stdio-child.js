// @ts-check
// A stdio MCP server over a file store, as `edgemem mcp --store FILE` runs it (mcp-server.test.js spawns it):
// runStdioMcp until stdin ends, then the store is closed and "closed after <what came first>" is written to stderr:
// stdin's end, or the SIGTERM a client sends a server that has not ended 2 s after stdin did (recorded, not obeyed).
import { openStore } from 'edgemem';
import { runStdioMcp } from '../../dist/mcp/stdio.js';

const file = process.argv[2];
if (!file) throw new Error('usage: mcp-stdio-child.js STORE_FILE');
/** @type {string | undefined} */
let first;
process.stdin.once('end', () => {
  first ??= 'stdin';
});
process.once('SIGTERM', () => {
  first ??= 'SIGTERM';
});
const store = await openStore({ storage: { file } });
await runStdioMcp(store);
await store.close();
process.stderr.write(`closed after ${first ?? 'nothing'}\n`);
