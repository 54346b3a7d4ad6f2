#!/usr/bin/env node
/**
 * `edgemem`, the package's command line (Node only: no entry of the package imports it). Each command works on a
 * local store (`--store PATH`) or an agent of the edgemem Worker (`--url`, `--agent`, `--token`, or EDGEMEM_URL /
 * EDGEMEM_AGENT / EDGEMEM_TOKEN); it prints a table, or JSON with `--json`, and fails with `edgemem: CODE: message`
 * and the exit code of the engine's error code (exit-codes.ts). Arguments are parsed by commander.
 */

import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { coherenceCommands } from './coherence.js';
import { EXIT_CODES, exitCodesHelp, report } from './exit-codes.js';
import { mcpCommand } from './mcp.js';
import { memoryCommands } from './memories.js';
import { searchCommand } from './search.js';
import { statsCommand } from './stats.js';
import { tailCommand } from './tail.js';
import { tokenCommand } from './token.js';
import { transferCommands } from './transfer.js';

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

const ENVIRONMENT = `Environment: EDGEMEM_URL, EDGEMEM_AGENT, EDGEMEM_TOKEN (the remote store's --url, --agent, --token),
EDGEMEM_ADMIN_TOKEN (token's --admin-token). --store PATH wins over a Worker named only by the environment.`;

function program(): Command {
  const cli = new Command('edgemem')
    .description(
      'agent memory from the command line: a local store file (--store) or an agent of the edgemem Worker (--url)',
    )
    .version(packageVersion())
    .exitOverride()
    .configureOutput({
      outputError: (text, write) => write(`edgemem: INVALID_ARGUMENT: ${text.replace(/^error: /, '')}`),
    })
    .showHelpAfterError('(edgemem --help, or edgemem <command> --help)')
    .addHelpText('after', `\n${ENVIRONMENT}\n\n${exitCodesHelp()}\n`);
  statsCommand(cli);
  memoryCommands(cli);
  searchCommand(cli);
  coherenceCommands(cli);
  transferCommands(cli);
  tailCommand(cli);
  tokenCommand(cli);
  mcpCommand(cli);
  return cli;
}

async function main(): Promise<number> {
  try {
    await program().parseAsync(process.argv);
    // A command that ended short of done on its own terms (consolidate interrupted) set its code.
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : EXIT_CODES.INVALID_ARGUMENT;
    return report(e);
  }
}

// A reader that stopped early (`edgemem export | head`) is not an error.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});
process.exitCode = await main();
