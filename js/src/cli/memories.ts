/**
 * The memory commands: `get NS KEY [--as-of]`, `put NS KEY VALUE [--text] [--embedding] …`, `list [NS]` (one page,
 * `--cursor` for the next) and `history NS KEY` (every retained version, oldest first).
 */

import type { Command } from 'commander';
import { EdgememError } from '../api/errors.js';
import type { AsOf, JsonValue, Memory, MemoryInput, Namespace } from '../api/types.js';
import {
  asOfOption,
  formatNamespace,
  memoryArguments,
  parseCount,
  parseJson,
  parseJsonObject,
  parseNamespace,
  parseVector,
} from './args.js';
import { ns, printRecord, printTable, show, time } from './output.js';
import { type TargetOptions, targetOptions, withStore } from './target.js';

/** A memory as one table row. */
function row(m: Memory) {
  return {
    namespace: ns(m.namespace),
    key: m.key,
    version: m.version,
    seq: m.seq,
    updated: time(m.updatedAt),
    value: m.value,
    text: m.text,
  };
}

function getCommand(program: Command): void {
  targetOptions(
    memoryArguments(program.command('get').description('one memory (as it was at --as-of)'))
      .addOption(asOfOption())
      .option('--embedding', 'include the embedding'),
  ).action(async (namespace: Namespace, key: string, o: TargetOptions & { asOf?: AsOf; embedding?: boolean }) => {
    const m = await withStore(o, (store) =>
      store.get(namespace, key, { ...(o.asOf ? { asOf: o.asOf } : {}), includeEmbedding: o.embedding === true }),
    );
    if (m === null)
      throw new EdgememError(
        'NOT_FOUND',
        `no memory ${formatNamespace(namespace)} ${JSON.stringify(key)}${o.asOf ? ' at that point' : ''}`,
      );
    show(o.json, m, () =>
      printRecord({
        ...m,
        namespace: ns(m.namespace),
        createdAt: time(m.createdAt),
        updatedAt: time(m.updatedAt),
        expiresAt: time(m.expiresAt),
      }),
    );
  });
}

interface PutOptions extends TargetOptions {
  text?: string;
  embedding?: number[];
  metadata?: { [key: string]: JsonValue };
  pinned?: boolean;
  ttl?: number;
  ifVersion?: number;
}

function putCommand(program: Command): void {
  targetOptions(
    memoryArguments(program.command('put').description('write a memory (create or replace)'))
      .argument('<value>', `the value as JSON (a string is quoted: '"oat milk"')`, parseJson)
      .option('--text <text>', 'text indexed for lexical search')
      .option('--embedding <json>', "a vector, as a JSON array of the store's dims numbers", parseVector)
      .option('--metadata <json>', 'a JSON object (filterable)', parseJsonObject)
      .option('--pinned', 'never evicted by the caps')
      .option('--ttl <ms>', 'expires after this many ms', parseCount)
      .option('--if-version <n>', 'compare-and-set: only if the current version is n (0: must not exist)', parseCount),
  ).action(async (namespace: Namespace, key: string, value: JsonValue, o: PutOptions) => {
    const input: MemoryInput = { namespace, key, value };
    if (o.text !== undefined) input.text = o.text;
    if (o.embedding !== undefined) input.embedding = o.embedding;
    if (o.metadata !== undefined) input.metadata = o.metadata;
    if (o.pinned) input.pinned = true;
    if (o.ttl !== undefined) input.ttlMs = o.ttl;
    if (o.ifVersion !== undefined) input.ifVersion = o.ifVersion;
    const ack = await withStore(o, (store) => store.put(input));
    show(o.json, ack, () =>
      printRecord({
        seq: ack.seq,
        version: ack.version,
        evicted: ack.evicted.map((e) => `${ns(e.namespace)} ${e.key}`).join(', '),
      }),
    );
  });
}

interface ListOptions extends TargetOptions {
  limit?: number;
  cursor?: string;
  asOf?: AsOf;
}

function listCommand(program: Command): void {
  targetOptions(
    program
      .command('list')
      .description('one page of the memories under a namespace prefix (the whole store without one)')
      .argument('[ns]', 'namespace prefix, a/b', parseNamespace)
      .option('--limit <n>', 'at most n memories (default 100)', parseCount)
      .option('--cursor <cursor>', 'the next page: the cursor the previous one printed')
      .addOption(asOfOption()),
  ).action(async (prefix: Namespace | undefined, o: ListOptions) => {
    const page = await withStore(o, (store) =>
      store.list({
        ...(prefix ? { prefix } : {}),
        limit: o.limit ?? 100,
        ...(o.cursor ? { cursor: o.cursor } : {}),
        ...(o.asOf ? { asOf: o.asOf } : {}),
      }),
    );
    show(o.json, page, () => {
      printTable(['namespace', 'key', 'version', 'seq', 'updated', 'value', 'text'], page.items.map(row));
      if (page.nextCursor !== null) process.stderr.write(`more: --cursor ${page.nextCursor}\n`);
    });
  });
}

function historyCommand(program: Command): void {
  targetOptions(
    memoryArguments(program.command('history').description('every retained version of a memory, oldest first')),
  ).action(async (namespace: Namespace, key: string, o: TargetOptions) => {
    const versions = await withStore(o, (store) => store.history(namespace, key));
    show(o.json, versions, () => printTable(['version', 'seq', 'updated', 'value', 'text'], versions.map(row)));
  });
}

export function memoryCommands(program: Command): void {
  getCommand(program);
  putCommand(program);
  listCommand(program);
  historyCommand(program);
}
