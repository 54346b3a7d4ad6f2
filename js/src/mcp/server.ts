/**
 * `createMcpServer(store)`: an MCP server (the SDK's `McpServer`, not yet connected) over any `MemoryStore` — a
 * local store or `connect()` to the edgemem Worker — with the nine knowledge-graph tools of
 * `@modelcontextprotocol/server-memory` (graph-tools.ts), edgemem's own tools (memory-tools.ts) and the
 * resources (resources.ts). Host-neutral: connect it to stdio in Node (stdio.ts), or to the SDK's
 * `WebStandardStreamableHTTPServerTransport` in a Worker — one server per session, as its subscriptions are.
 */

import type { ServerOptions } from '@modelcontextprotocol/sdk/server/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { MemoryStore, Namespace } from '../api/types.js';
import { KnowledgeGraph } from './graph.js';
import { registerGraphTools } from './graph-tools.js';
import { registerMemoryTools } from './memory-tools.js';
import { offerReadToolsOnly } from './register.js';
import { registerResources } from './resources.js';

export interface McpServerOptions {
  /** The server's name in the MCP handshake (default `edgemem`). */
  name?: string;
  /** The server's version in the handshake (default: this package's). */
  version?: string;
  /** Where the knowledge graph lives (default `['mcp-graph']`: entities and relations under it). */
  graphNamespace?: Namespace;
  /** Where `remember` files a fact given no namespace (default `['memories']`). */
  defaultNamespace?: Namespace;
  /** How many entities `search_nodes` returns beyond those containing the query (default 10). */
  searchExtras?: number;
  /** Instructions for the model, sent in the handshake (default: how the tools fit together). */
  instructions?: string;
  /** Offer only the tools that read (a caller with a read-only token); default false. */
  readOnly?: boolean;
  /**
   * Whether resources can be subscribed to (default true). A server that lives for one request (stateless
   * Streamable HTTP, as the Worker serves it) cannot notify anyone later, so it offers none.
   */
  subscriptions?: boolean;
  /** More options for the SDK's `Server` (e.g. `jsonSchemaValidator`). */
  serverOptions?: ServerOptions;
}

/** Keep in step with package.json (the handshake's default version). */
const VERSION = '0.1.0';

const INSTRUCTIONS =
  'Long-term memory. Two ways to keep what you learn, and both persist across conversations: a knowledge graph ' +
  '(create_entities, create_relations, add_observations; read it with search_nodes, open_nodes, read_graph) for people, ' +
  'things and how they relate; and free-text memories (remember, recall, context, forget, history, changes) for facts, ' +
  'preferences and decisions. remember keeps them coherent: a fact already known is folded into its memory, and a ' +
  'changed fact supersedes the old one (kept in history), so recall and context answer with what is true now. ' +
  'At the start of a task, context loads what memory knows about it; before answering something that may depend on ' +
  'earlier conversations, search memory (recall covers both); when you learn something durable, remember it.';

/** An MCP server over `store`, ready to `connect` to a transport. Close it to end its resource subscriptions. */
export function createMcpServer(store: MemoryStore, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(
    { name: options.name ?? 'edgemem', version: options.version ?? VERSION },
    { ...options.serverOptions, instructions: options.instructions ?? INSTRUCTIONS },
  );
  const graph = new KnowledgeGraph(store, {
    ...(options.graphNamespace === undefined ? {} : { namespace: options.graphNamespace }),
    ...(options.searchExtras === undefined ? {} : { searchExtras: options.searchExtras }),
  });
  if (options.readOnly) offerReadToolsOnly(server);
  registerGraphTools(server, graph);
  registerMemoryTools(
    server,
    store,
    options.defaultNamespace === undefined ? {} : { defaultNamespace: options.defaultNamespace },
  );
  registerResources(server, store, graph, { subscriptions: options.subscriptions ?? true });
  return server;
}
