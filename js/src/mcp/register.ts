/**
 * `registerTool`: the SDK's `McpServer.registerTool` with the argument types inferred by our own zod (`zod/v3`)
 * rather than by the SDK's generics, which compare our schema types with those of the SDK's copy of zod and
 * exhaust the type checker; and every handler guarded, so store errors become tool errors (results.ts). On a
 * server marked read-only (`offerReadToolsOnly`), tools that are not `readOnlyHint` are not registered at all.
 */

import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod/v3';
import { guarded } from './results.js';

export interface ToolConfig<S extends z.ZodRawShape> {
  title: string;
  description: string;
  inputSchema: S;
  outputSchema?: z.ZodRawShape;
  annotations: ToolAnnotations;
}

const readOnlyServers = new WeakSet<McpServer>();

/** From now on `server` is offered only tools annotated `readOnlyHint` (a caller allowed to read, not write). */
export function offerReadToolsOnly(server: McpServer): void {
  readOnlyServers.add(server);
}

type LooseRegister = (name: string, config: object, handler: (args: unknown) => Promise<CallToolResult>) => unknown;

/** Registers tool `name` on `server`; `handler` gets the arguments parsed by `config.inputSchema`. */
export function registerTool<S extends z.ZodRawShape>(
  server: McpServer,
  name: string,
  config: ToolConfig<S>,
  handler: (args: z.objectOutputType<S, z.ZodTypeAny>) => Promise<CallToolResult>,
): void {
  if (readOnlyServers.has(server) && !config.annotations.readOnlyHint) return;
  const register = server.registerTool.bind(server) as unknown as LooseRegister;
  register(
    name,
    config,
    guarded((args: unknown) => handler(args as z.objectOutputType<S, z.ZodTypeAny>)),
  );
}
