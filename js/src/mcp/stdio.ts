/**
 * The stdio MCP server (Node only; the `edgemem mcp` command runs it): `createMcpServer(store)` over stdin and
 * stdout until stdin ends, the client closes, or SIGINT / SIGTERM. Nothing else may write to stdout meanwhile.
 * Also re-exports `importMemoryJsonl` for `edgemem mcp --import-jsonl`.
 */

import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { MemoryStore } from '../api/types.js';
import { createMcpServer, type McpServerOptions } from './server.js';

export { importMemoryJsonl } from './import-jsonl.js';

export interface StdioMcpOptions extends McpServerOptions {
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. */
  stdout?: Writable;
}

/** Serves `store` over stdio; resolves once the session has ended (the store stays open: close it then). */
export async function runStdioMcp(store: MemoryStore, options: StdioMcpOptions = {}): Promise<void> {
  const { stdin = process.stdin, stdout = process.stdout, ...serverOptions } = options;
  const server = createMcpServer(store, serverOptions);
  const stop = () => {
    server.close().catch(() => {});
  };
  const closed = new Promise<void>((resolve) => {
    const onclose = server.server.onclose;
    server.server.onclose = () => {
      onclose?.();
      resolve();
    };
  });
  stdin.once('end', stop);
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await server.connect(new StdioServerTransport(stdin, stdout));
    await closed;
  } finally {
    stdin.off('end', stop);
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
