/**
 * `tail [--since SEQ] [--kinds …] [--prefix NS]`: follows a remote agent's change feed, one line per event (JSON
 * lines with `--json`), until Ctrl-C. It subscribes first (the WebSocket resumes by itself from the last seq it
 * saw when it drops), then with `--since` prints the retained events after SEQ from `changes` and goes on with
 * the live ones — each event once, in seq order. A local store belongs to this one process, so nothing else
 * can write to it meanwhile: there `tail` prints the retained events after `--since` (default: all) and ends.
 */

import type { Command } from 'commander';
import type { EdgememError } from '../api/errors.js';
import { EVENT_KINDS } from '../api/generated/engine.js';
import type { ChangeEvent, EventFilter, EventKind, MemoryStore, Namespace } from '../api/types.js';
import { listOf, parseCount, parseNamespace } from './args.js';
import { ns, time, toJson } from './output.js';
import { openTarget, type TargetOptions, targetOptions } from './target.js';

const KINDS: readonly EventKind[] = EVENT_KINDS;

interface TailOptions extends TargetOptions {
  since?: number;
  kinds?: EventKind[];
  prefix?: Namespace;
}

/** An event as one line. */
function line(e: ChangeEvent, json: boolean | undefined): string {
  if (json) return toJson(e);
  const what =
    e.kind === 'notify'
      ? `${e.channel ?? ''} ${toJson(e.payload ?? null)}`
      : e.kind === 'checkpoint'
        ? `${e.channel ?? ''} ${e.key ?? ''}`
        : `${ns(e.namespace)} ${e.key ?? ''}${e.version === undefined ? '' : ` v${e.version}`}`;
  return `${e.seq}\t${time(e.ts)}\t${e.kind}\t${what}`;
}

/** Prints the retained events after `after`, page by page; returns the last seq printed. */
async function printChanges(
  store: MemoryStore,
  after: number,
  filter: EventFilter,
  print: (e: ChangeEvent) => void,
): Promise<void> {
  for (let from = after; ; ) {
    const page = await store.changesPage(from, { filter, limit: 1000 });
    for (const e of page.events) print(e);
    const last = page.events.at(-1);
    if (!page.more || last === undefined) return;
    from = last.seq;
  }
}

/** Resolves on Ctrl-C or SIGTERM. */
function interrupted(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

async function follow(o: TailOptions, filter: EventFilter): Promise<void> {
  let failed: (e: EdgememError) => void = () => {};
  const ended = new Promise<never>((_, reject) => {
    failed = reject;
  });
  ended.catch(() => {}); // raced below; a failure before then must not count as unhandled
  const store = await openTarget(o, { onError: (e) => failed(e) });
  try {
    let last = o.since ?? -1;
    let live = false;
    const early: ChangeEvent[] = [];
    const print = (e: ChangeEvent) => {
      if (e.seq <= last) return; // already printed from `changes`
      last = e.seq;
      process.stdout.write(`${line(e, o.json)}\n`);
    };
    const sub = await store.subscribe(filter, (e) => (live ? print(e) : early.push(e)));
    if (o.since !== undefined) await printChanges(store, o.since, filter, print);
    live = true;
    early.forEach(print);
    process.stderr.write(`tail: following agent ${o.agent ?? ''} (Ctrl-C ends)\n`);
    await Promise.race([interrupted(), ended]);
    await sub.unsubscribe();
  } finally {
    await store.close();
  }
}

export function tailCommand(program: Command): void {
  targetOptions(
    program
      .command('tail')
      .description("follow a remote agent's change feed (a local store: print its retained changes)")
      .option(
        '--since <seq>',
        'first print the retained events after this seq (default: from now; a local store: 0)',
        parseCount,
      )
      .option('--kinds <list>', `only these kinds: ${KINDS.join(',')}`, listOf(KINDS))
      .option('--prefix <ns>', 'memory events under this namespace only, a/b', parseNamespace),
  ).action(async (o: TailOptions) => {
    const filter: EventFilter = {};
    if (o.kinds !== undefined) filter.kinds = o.kinds;
    if (o.prefix !== undefined) filter.namespaces = [o.prefix];
    if (o.store === undefined) return follow(o, filter);
    const store = await openTarget(o);
    try {
      await printChanges(store, o.since ?? 0, filter, (e) => process.stdout.write(`${line(e, o.json)}\n`));
    } finally {
      await store.close();
    }
  });
}
