// @ts-check
// Helpers of the MCP tests: an SDK client connected to createMcpServer(store) in-process, and tool results read
// back as what they carry.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from 'edgemem/mcp';

/**
 * An SDK client of `createMcpServer(store)` over an in-memory transport pair.
 * @param {import('edgemem').MemoryStore} store
 * @param {import('edgemem/mcp').McpServerOptions} [options]
 */
export async function connectInProcess(store, options) {
  const server = createMcpServer(store, options);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'edgemem-test', version: '0' });
  await client.connect(clientSide);
  return client;
}

/**
 * A tool call's outcome: `error` (the text of an isError result) or `text` and `json` (the text parsed, when it is JSON),
 * and the structured content.
 * @param {Client} client
 * @param {string} name
 * @param {Record<string, unknown>} [args]
 */
export async function call(client, name, args = {}) {
  const result = await client.callTool({ name, arguments: args });
  const content = /** @type {{ type: string, text?: string }[]} */ (result.content);
  const text = content.map((c) => c.text ?? '').join('');
  if (result.isError) return { error: text, text, json: undefined, structured: undefined };
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { error: undefined, text, json, structured: result.structuredContent };
}
