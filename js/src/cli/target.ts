/**
 * Which store a command works on: a local database file (`--store PATH`), an agent of the edgemem Worker
 * (`--url`, `--agent`, `--token`, or EDGEMEM_URL / EDGEMEM_AGENT / EDGEMEM_TOKEN), or a live local replica of that
 * agent kept in a file (`--replica PATH` with the agent's options: reads answered locally, offline too). Every store
 * command takes these options; `withStore` opens the store, runs the command and closes it, whatever happens.
 */

import { type Command, Option } from 'commander';
import { type EdgememError, invalid } from '../api/errors.js';
import type { MemoryStore } from '../api/types.js';
import { connect, type ModelOptions, openStore } from '../entries/node.js';
import type { ReplicaMemoryStore } from '../replica/replica-store.js';
import { parseCount } from './args.js';

export interface TargetOptions {
  store?: string;
  replica?: string;
  url?: string;
  agent?: string;
  token?: string;
  dims?: number;
  json?: boolean;
}

/** Adds the store options and `--json` to `cmd`. */
export function targetOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--store <path>', 'a local store: its database file (created if missing)'))
    .addOption(
      new Option('--dims <n>', 'embedding dimensions of a new local store (an existing one keeps its own)').argParser(
        parseCount,
      ),
    )
    .addOption(
      new Option('--replica <path>', 'a live local replica of the agent (--url, --agent, --token): its file').env(
        'EDGEMEM_REPLICA',
      ),
    )
    .addOption(new Option('--url <url>', 'the edgemem Worker').env('EDGEMEM_URL'))
    .addOption(new Option('--agent <id>', 'the agent on the Worker').env('EDGEMEM_AGENT'))
    .addOption(new Option('--token <token>', 'a token for that agent (scoped or the admin token)').env('EDGEMEM_TOKEN'))
    .option('--json', 'print JSON (for scripts) instead of a table');
}

export interface OpenHooks {
  /** A remote subscription that ended on its own (RESUME_GAP, UNAUTHORIZED, FORBIDDEN). */
  onError?: (error: EdgememError) => void;
  /** The chat models `remember` consults (models.ts: `--chat-url`, `--judge`, `--messages`). */
  models?: ModelOptions;
}

/** Opens the store the options name: `--store` wins over a Worker named only by the environment. */
export async function openTarget(o: TargetOptions, hooks: OpenHooks = {}): Promise<MemoryStore> {
  if (o.store !== undefined && o.replica !== undefined) throw invalid('give --store or --replica, not both');
  const models = hooks.models ?? {};
  if (o.store !== undefined) return openStore({ storage: { file: o.store }, dims: o.dims ?? 0, ...models });
  if (o.url === undefined)
    throw invalid(
      'no store: give --store PATH, or --url URL --agent ID --token T (or EDGEMEM_URL, EDGEMEM_AGENT, EDGEMEM_TOKEN)',
    );
  if (o.agent === undefined) throw invalid('--url needs --agent ID (or EDGEMEM_AGENT)');
  if (o.token === undefined) throw invalid('--url needs --token T (or EDGEMEM_TOKEN)');
  if (o.replica !== undefined) {
    const replica = await openStore({
      storage: { file: o.replica },
      replicaOf: { url: o.url, agent: o.agent, token: o.token },
      ...models,
    });
    // Caught up first when the agent can be reached; offline, the command works from what the file holds.
    await replica.sync().catch(() => undefined);
    return replica;
  }
  return connect({
    url: o.url,
    agent: o.agent,
    token: o.token,
    ...models,
    ...(hooks.onError ? { onError: hooks.onError } : {}),
  });
}

/** A replica's queued writes pushed before it closes, when the agent can be reached (else they wait in its file). */
async function closeTarget(store: MemoryStore): Promise<void> {
  const sync = (store as Partial<ReplicaMemoryStore>).sync;
  if (typeof sync === 'function') await sync.call(store).catch(() => undefined);
  await store.close();
}

/** Opens the store, runs `fn` on it, and closes it (also when `fn` fails). */
export async function withStore<T>(
  o: TargetOptions,
  fn: (store: MemoryStore) => Promise<T>,
  hooks?: OpenHooks,
): Promise<T> {
  const store = await openTarget(o, hooks);
  try {
    return await fn(store);
  } finally {
    await closeTarget(store);
  }
}
