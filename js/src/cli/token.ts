/**
 * `token --agent A [--scopes read,write,subscribe] [--ttl SECONDS]`: mints a token scoped to one agent with the
 * Worker's admin token (`--admin-token` or EDGEMEM_ADMIN_TOKEN) — what a backend hands an agent or a browser.
 */

import { type Command, Option } from 'commander';
import { invalid } from '../api/errors.js';
import { mintToken, type Scope } from '../remote/admin.js';
import { listOf, parseCount } from './args.js';
import { printRecord, show, time } from './output.js';

const SCOPES: readonly Scope[] = ['read', 'write', 'subscribe'];

interface TokenOptions {
  url?: string;
  adminToken?: string;
  agent?: string;
  scopes: Scope[];
  ttl?: number;
  json?: boolean;
}

export function tokenCommand(program: Command): void {
  program
    .command('token')
    .description('mint a token scoped to one agent (needs the admin token)')
    .addOption(new Option('--url <url>', 'the edgemem Worker').env('EDGEMEM_URL'))
    .addOption(new Option('--admin-token <token>', "the Worker's admin token").env('EDGEMEM_ADMIN_TOKEN'))
    .addOption(new Option('--agent <id>', 'the agent the token is for').env('EDGEMEM_AGENT'))
    .option('--scopes <list>', `comma-separated: ${SCOPES.join(',')}`, listOf(SCOPES), [...SCOPES])
    .option('--ttl <seconds>', 'lifetime (default 3600, at most 86400)', parseCount)
    .option('--json', 'print JSON (for scripts) instead of a table')
    .action(async (o: TokenOptions) => {
      if (o.url === undefined) throw invalid('token needs --url URL (or EDGEMEM_URL)');
      if (o.adminToken === undefined) throw invalid('token needs --admin-token T (or EDGEMEM_ADMIN_TOKEN)');
      if (o.agent === undefined) throw invalid('token needs --agent ID (or EDGEMEM_AGENT)');
      const minted = await mintToken({
        url: o.url,
        adminToken: o.adminToken,
        agent: o.agent,
        scopes: o.scopes,
        ...(o.ttl === undefined ? {} : { ttlSeconds: o.ttl }),
      });
      show(o.json, minted, () =>
        printRecord(
          {
            token: minted.token,
            agent: minted.agent,
            scopes: minted.scopes.join(','),
            expiresAt: time(minted.expiresAt),
          },
          false,
        ),
      );
    });
}
