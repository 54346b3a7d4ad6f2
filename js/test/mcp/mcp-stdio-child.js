// @ts-check
// A stdio MCP server over a file store, as `edgemem mcp --store FILE` runs it (mcp-server.test.js spawns it):
// runStdioMcp until stdin ends, then the store is closed and "closed" is written to stderr.
import { openStore } from 'edgemem';
import { runStdioMcp } from '../../dist/mcp/stdio.js';

const file = process.argv[2];
if (!file) throw new Error('usage: mcp-stdio-child.js STORE_FILE');
const store = await openStore({ storage: { file } });
await runStdioMcp(store);
await store.close();
process.stderr.write('closed\n');
