/**
 * `edgemem/mcp`: the Model Context Protocol server over any `MemoryStore` (host-neutral: Node, browsers,
 * workerd). `createMcpServer(store)` returns the SDK's `McpServer` with the knowledge-graph tools of
 * `@modelcontextprotocol/server-memory`, edgemem's own memory tools and the resources; connect it to a transport
 * (stdio: `npx edgemem mcp`; Streamable HTTP: the Worker). `importMemoryJsonl` loads that server's `memory.jsonl`.
 */

export {
  type AddedObservations,
  KnowledgeGraph,
  type KnowledgeGraphOptions,
  type ObservationAddition,
  type ObservationDeletion,
} from './graph.js';
export { DEFAULT_GRAPH_NAMESPACE, type Entity, type Graph, type Relation } from './graph-layout.js';
export { importMemoryJsonl, parseMemoryJsonl } from './import-jsonl.js';
export { CHANGES_URI, GRAPH_URI, STATS_URI } from './resources.js';
export { createMcpServer, type McpServerOptions } from './server.js';
