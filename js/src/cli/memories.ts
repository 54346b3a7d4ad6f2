/**
 * The memory commands: `get NS KEY [--as-of] [--valid-at]`, `put NS KEY VALUE [--text] [--embedding] …`, `list [NS]`
 * (one page, `--cursor` for the next) and `history NS KEY` (every retained version, oldest first). Reads answer with
 * the facts valid now unless `--valid-at` names another time (or `any`).
 */

import type { Command } from 'commander';
import { EdgememError } from '../api/errors.js';
import type { AsOf, JsonValue, Memory, MemoryInput, Namespace, ValidAt } from '../api/types.js';
import {
  asOfOption,
  formatNamespace,
  memoryArguments,
  parseCount,
  parseJson,
  parseJsonObject,
  parseNamespace,
  parseTime,
  parseVector,
  validAtOption,
} from './args.js';
import { ns, printRecord, printTable, show, time, validSpan, withValidColumn } from './output.js';
import { type TargetOptions, targetOptions, withStore } from './target.js';

/** A memory as one table row. */
function row(m: Memory) {
  return {
    namespace: ns(m.namespace),
    key: m.key,
    version: m.version,
    seq: m.seq,
    updated: time(m.updatedAt),
    valid: validSpan(m),
    value: m.value,
    text: m.text,
  };
}

function getCommand(program: Command): void {
  targetOptions(
    memoryArguments(
      program.command('get').description('one memory (as it was at --as-of; if valid now, or at --valid-at)'),
    )
      .addOption(asOfOption())
      .addOption(validAtOption())
      .option('--embedding', 'include the embedding'),
  ).action(
    async (
      namespace: Namespace,
      key: string,
      o: TargetOptions & { asOf?: AsOf; validAt?: ValidAt; embedding?: boolean },
    ) => {
      const m = await withStore(o, (store) =>
        store.get(namespace, key, {
          ...(o.asOf ? { asOf: o.asOf } : {}),
          ...(o.validAt === undefined ? {} : { validAt: o.validAt }),
          includeEmbedding: o.embedding === true,
        }),
      );
      if (m === null) {
        const when = o.asOf ? ' at that point' : '';
        const valid =
          o.validAt === 'any'
            ? ''
            : ` valid ${o.validAt === undefined ? 'now' : 'then'} (--valid-at any also finds one no longer valid)`;
        throw new EdgememError(
          'NOT_FOUND',
          `no memory ${formatNamespace(namespace)} ${JSON.stringify(key)}${when}${valid}`,
        );
      }
      show(o.json, m, () =>
        printRecord({
          ...m,
          namespace: ns(m.namespace),
          createdAt: time(m.createdAt),
          updatedAt: time(m.updatedAt),
          expiresAt: time(m.expiresAt),
          ...(m.validFrom === undefined ? {} : { validFrom: time(m.validFrom) }),
          ...(m.validTo === undefined ? {} : { validTo: time(m.validTo) }),
          ...(m.lastSeen === undefined ? {} : { lastSeen: time(m.lastSeen) }),
        }),
      );
    },
  );
}

interface PutOptions extends TargetOptions {
  validFrom?: number;
  validTo?: number;
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
      .option('--if-version <n>', 'compare-and-set: only if the current version is n (0: must not exist)', parseCount)
      .option('--valid-from <ms|iso>', 'when the fact became true in the world (default: always was)', parseTime)
      .option('--valid-to <ms|iso>', 'when it stopped being true (default: still is)', parseTime),
  ).action(async (namespace: Namespace, key: string, value: JsonValue, o: PutOptions) => {
    const input: MemoryInput = { namespace, key, value };
    if (o.text !== undefined) input.text = o.text;
    if (o.embedding !== undefined) input.embedding = o.embedding;
    if (o.metadata !== undefined) input.metadata = o.metadata;
    if (o.pinned) input.pinned = true;
    if (o.ttl !== undefined) input.ttlMs = o.ttl;
    if (o.ifVersion !== undefined) input.ifVersion = o.ifVersion;
    if (o.validFrom !== undefined) input.validFrom = o.validFrom;
    if (o.validTo !== undefined) input.validTo = o.validTo;
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
  validAt?: ValidAt;
}

function listCommand(program: Command): void {
  targetOptions(
    program
      .command('list')
      .description('one page of the memories under a namespace prefix (the whole store without one)')
      .argument('[ns]', 'namespace prefix, a/b', parseNamespace)
      .option('--limit <n>', 'at most n memories (default 100)', parseCount)
      .option('--cursor <cursor>', 'the next page: the cursor the previous one printed')
      .addOption(asOfOption())
      .addOption(validAtOption()),
  ).action(async (prefix: Namespace | undefined, o: ListOptions) => {
    const page = await withStore(o, (store) =>
      store.list({
        ...(prefix ? { prefix } : {}),
        limit: o.limit ?? 100,
        ...(o.cursor ? { cursor: o.cursor } : {}),
        ...(o.asOf ? { asOf: o.asOf } : {}),
        ...(o.validAt === undefined ? {} : { validAt: o.validAt }),
      }),
    );
    show(o.json, page, () => {
      const rows = page.items.map(row);
      printTable(withValidColumn(['namespace', 'key', 'version', 'seq', 'updated', 'value', 'text'], rows), rows);
      if (page.nextCursor !== null) process.stderr.write(`more: --cursor ${page.nextCursor}\n`);
    });
  });
}

function historyCommand(program: Command): void {
  targetOptions(
    memoryArguments(program.command('history').description('every retained version of a memory, oldest first')),
  ).action(async (namespace: Namespace, key: string, o: TargetOptions) => {
    const versions = await withStore(o, (store) => store.history(namespace, key));
    show(o.json, versions, () => {
      const rows = versions.map(row);
      printTable(withValidColumn(['version', 'seq', 'updated', 'value', 'text'], rows), rows);
    });
  });
}

export function memoryCommands(program: Command): void {
  getCommand(program);
  putCommand(program);
  listCommand(program);
  historyCommand(program);
}
