/**
 * `mcp`: serves the store (local or remote) as a Model Context Protocol server on stdin/stdout until stdin
 * ends or Ctrl-C (with `--judge` and a chat model, its `remember` tool asks the model about the facts the rules
 * cannot place); `mcp --import-jsonl FILE` loads a knowledge graph in the MCP memory server's JSONL format into
 * the store instead, and exits. The server (../mcp/stdio.ts, with the MCP SDK) is imported only when this command runs.
 */

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { EdgememError } from '../api/errors.js';
import { type ModelCliOptions, modelOptions, storeModels } from './models.js';
import { printRecord, show } from './output.js';
import { type TargetOptions, targetOptions, withStore } from './target.js';

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new EdgememError('INVALID_ARGUMENT', `cannot read ${file}: ${(e as Error).message}`);
  }
}

export function mcpCommand(program: Command): void {
  targetOptions(
    modelOptions(
      program
        .command('mcp')
        .description('serve the store as an MCP server on stdin/stdout (or --import-jsonl a memory graph into it)')
        .option(
          '--import-jsonl <file>',
          "load the MCP memory server's JSONL knowledge graph into the store, then exit",
        ),
    ),
  ).action(async (o: TargetOptions & ModelCliOptions & { importJsonl?: string }) => {
    const mcp = await import('../mcp/stdio.js');
    if (o.importJsonl === undefined)
      return withStore(o, (store) => mcp.runStdioMcp(store), { models: storeModels(o, false) });
    const text = readText(o.importJsonl);
    const counts = await withStore(o, (store) => mcp.importMemoryJsonl(store, text));
    show(o.json, counts, () => printRecord({ ...counts }));
  });
}
