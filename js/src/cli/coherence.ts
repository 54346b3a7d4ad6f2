/**
 * The commands of a coherent memory: `remember NS [TEXT]` (a fact folded into the memory it duplicates, superseding
 * the one it updates, or new; `--messages FILE` for the facts a chat model finds in a conversation; `--dry-run` for
 * the decision alone), `context [QUERY]` (the prompt-ready block, printed as it is) and `consolidate NS` (the same
 * rules over what is stored, a page at a time until done; interrupted, it says where to resume).
 */

import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { EdgememError, invalid } from '../api/errors.js';
import type {
  Assessment,
  ChatMessage,
  CoherenceSettings,
  ConsolidateReport,
  ContextOptions,
  DecisionTarget,
  JsonValue,
  MemoryStore,
  Namespace,
  Remembered,
  RememberInput,
  ValidAt,
} from '../api/types.js';
import {
  parseCount,
  parseJson,
  parseJsonObject,
  parseNamespace,
  parseTime,
  parseVector,
  validAtOption,
} from './args.js';
import { type ModelCliOptions, modelOptions, storeModels } from './models.js';
import { ns, printJson, printRecord, printTable, show } from './output.js';
import { type TargetOptions, targetOptions, withStore } from './target.js';

/** The exit code of a consolidation stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report it). */
export const EXIT_INTERRUPTED = 130;

/** The text of `file` (`-`: stdin). */
function readInput(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (e) {
    throw new EdgememError('INVALID_ARGUMENT', `cannot read ${file}: ${(e as Error).message}`);
  }
}

/** A conversation file: a JSON array of `{ role, content }`. */
function readMessages(file: string): ChatMessage[] {
  let v: unknown;
  try {
    v = JSON.parse(readInput(file));
  } catch (e) {
    if (e instanceof EdgememError) throw e;
    throw invalid(`${file} is not JSON: ${(e as Error).message}`);
  }
  const ok = (m: unknown) =>
    typeof m === 'object' &&
    m !== null &&
    typeof (m as ChatMessage).role === 'string' &&
    typeof (m as ChatMessage).content === 'string';
  if (!Array.isArray(v) || !v.every(ok)) throw invalid(`${file} must hold a JSON array of { "role", "content" }`);
  return v as ChatMessage[];
}

/** The rules' settings (`--settings '{"slotUpdates":true}'`). */
function parseSettings(text: string): CoherenceSettings {
  return parseJsonObject(text) as CoherenceSettings;
}

/** A decision's target as a table cell: its key and what it said. */
function targetCell(t: DecisionTarget | null): string {
  return t === null ? '' : `${t.key}: ${t.text ?? ''}`;
}

interface RememberOptions extends TargetOptions, ModelCliOptions {
  key?: string;
  value?: JsonValue;
  metadata?: { [key: string]: JsonValue };
  embedding?: number[];
  pinned?: boolean;
  validFrom?: number;
  messages?: string;
  settings?: CoherenceSettings;
  dryRun?: boolean;
}

function rememberCommand(program: Command): void {
  targetOptions(
    modelOptions(
      program
        .command('remember')
        .description(
          'remember a fact: folded into the memory it duplicates, superseding the one it updates, or new (prints the decision)',
        )
        .argument('<ns>', 'namespace, a/b/c: the fact is compared with its memories', parseNamespace)
        .argument('[text]', 'the fact, in words (- reads it from stdin)')
        .option('--key <key>', 'name the attribute: other words under the same key supersede it (default: generated)')
        .option('--value <json>', 'the value as JSON (default: the text)', parseJson)
        .option('--metadata <json>', 'a JSON object (filterable)', parseJsonObject)
        .option('--embedding <json>', "the fact's vector, a JSON array of the store's dims numbers", parseVector)
        .option('--pinned', 'always in context, never evicted by the caps')
        .option(
          '--valid-from <ms|iso>',
          'when the fact became true (default: now, for a fact that supersedes)',
          parseTime,
        )
        .option(
          '--messages <file>',
          'a conversation, a JSON array of {role, content} (- for stdin): the chat model extracts the facts',
        )
        .option('--settings <json>', `the rules' settings, e.g. '{"slotUpdates":true}'`, parseSettings)
        .option('--dry-run', 'print what the rules would decide (and the memories they cannot place), writing nothing'),
      true,
    ),
  ).action(async (namespace: Namespace, text: string | undefined, o: RememberOptions) => {
    if ((text === undefined) === (o.messages === undefined))
      throw invalid('remember needs the fact (TEXT, or - for stdin) or --messages FILE, one of them');
    if (o.dryRun && o.messages !== undefined) throw invalid('--dry-run takes TEXT, not --messages');
    const input: RememberInput = { namespace };
    if (o.messages !== undefined) input.messages = readMessages(o.messages);
    else input.text = text === '-' ? readInput('-').trim() : text;
    if (o.key !== undefined) input.key = o.key;
    if (o.value !== undefined) input.value = o.value;
    if (o.metadata !== undefined) input.metadata = o.metadata;
    if (o.embedding !== undefined) input.embedding = o.embedding;
    if (o.pinned) input.pinned = true;
    if (o.validFrom !== undefined) input.validFrom = o.validFrom;
    if (o.settings !== undefined) input.settings = o.settings;
    const models = storeModels(o, o.messages !== undefined);
    if (o.dryRun) {
      const a: Assessment = await withStore(o, (store) => store.assess(input), { models });
      show(o.json, a, () =>
        printRecord({
          decision: a.decision,
          target: targetCell(a.target),
          reason: a.reason,
          uncertain: a.uncertain.map((t) => t.key).join(', '),
        }),
      );
      return;
    }
    const done: Remembered[] = await withStore(o, (store) => store.remember(input), { models });
    show(o.json, done, () =>
      printTable(
        ['decision', 'key', 'version', 'seq', 'target', 'reason'],
        done.map((r) => ({
          decision: r.decision,
          key: r.key,
          version: r.version,
          seq: r.seq,
          target: targetCell(r.target),
          reason: r.reason,
        })),
      ),
    );
    if (done.length === 0 && !o.json) process.stderr.write('remember: the conversation held no fact to remember\n');
  });
}

interface ContextCliOptions extends TargetOptions {
  prefix?: Namespace[];
  budget?: number;
  recent?: number;
  validAt?: ValidAt;
  vector?: number[];
}

function contextCommand(program: Command): void {
  targetOptions(
    program
      .command('context')
      .description(
        'a prompt-ready block: the pinned memories, the facts relevant to QUERY valid now, the latest changes',
      )
      .argument('[query]', 'what the prompt is about (without it: pinned memories and recent changes)')
      .option(
        '--prefix <ns>',
        'draw only from this namespace and those under it, a/b (repeat for more)',
        (v: string, prev: Namespace[] | undefined) => [...(prev ?? []), parseNamespace(v)],
      )
      .option(
        '--budget <tokens>',
        'the most tokens the block may take, estimated as bytes / 4 (default 1000)',
        parseCount,
      )
      .option('--recent <n>', 'the latest changes listed at most (default 5; 0: none)', parseCount)
      .option('--vector <json>', "the query's vector, a JSON array of the store's dims numbers", parseVector)
      .addOption(validAtOption()),
  ).action(async (query: string | undefined, o: ContextCliOptions) => {
    const options: ContextOptions = {};
    if (query !== undefined) options.query = query;
    if (o.vector !== undefined) options.vector = o.vector;
    if (o.prefix !== undefined) options.namespaces = o.prefix;
    if (o.budget !== undefined) options.budget = o.budget;
    if (o.recent !== undefined) options.recent = o.recent;
    if (o.validAt !== undefined) options.validAt = o.validAt;
    const block = await withStore(o, (store) => store.context(options));
    if (o.json) printJson(block);
    else if (block.text === '') process.stderr.write('context: nothing in memory for this\n');
    else process.stdout.write(block.text.endsWith('\n') ? block.text : `${block.text}\n`);
  });
}

interface ConsolidateCliOptions extends TargetOptions {
  limit?: number;
  cursor?: string;
  pages?: number;
  settings?: CoherenceSettings;
}

/** What a consolidation run did, over however many pages it ran. */
interface ConsolidateSummary {
  namespace: Namespace;
  pages: number;
  examined: number;
  duplicates: number;
  supersedes: number;
  /** Where to resume (`--cursor`); null when the namespace is done. */
  nextCursor: string | null;
  decisions: Remembered[];
}

/**
 * Runs `consolidate` a page at a time from `o.cursor` until the namespace is done, `o.pages` pages ran, or
 * `stop()` says so (checked between pages: a page is applied whole or not at all).
 */
async function consolidatePages(
  store: MemoryStore,
  namespace: Namespace,
  o: ConsolidateCliOptions,
  stop: () => boolean,
  onPage: (s: ConsolidateSummary) => void,
): Promise<ConsolidateSummary> {
  const s: ConsolidateSummary = {
    namespace,
    pages: 0,
    examined: 0,
    duplicates: 0,
    supersedes: 0,
    nextCursor: o.cursor ?? null,
    decisions: [],
  };
  do {
    const page: ConsolidateReport = await store.consolidate({
      namespace,
      ...(s.nextCursor === null ? {} : { cursor: s.nextCursor }),
      ...(o.limit === undefined ? {} : { limit: o.limit }),
      ...(o.settings === undefined ? {} : { settings: o.settings }),
    });
    s.pages++;
    s.examined += page.examined;
    for (const d of page.decisions) {
      if (d.decision === 'duplicate') s.duplicates++;
      else if (d.decision === 'supersede') s.supersedes++;
      s.decisions.push(d);
    }
    s.nextCursor = page.nextCursor;
    onPage(s);
  } while (s.nextCursor !== null && !stop() && (o.pages === undefined || s.pages < o.pages));
  return s;
}

function consolidateCommand(program: Command): void {
  targetOptions(
    program
      .command('consolidate')
      .description(
        "apply remember's rules to the memories stored under a namespace: fold duplicates, close superseded facts (nothing is deleted)",
      )
      .argument('<ns>', 'the namespace (and those under it, each on its own), a/b', parseNamespace)
      .option('--limit <n>', 'memories examined per page (1..=1000, default 100)', parseCount)
      .option('--cursor <cursor>', 'resume where an interrupted run stopped (the cursor it printed)')
      .option('--pages <n>', 'stop after n pages (then print the cursor to resume from)', parseCount)
      .option('--settings <json>', `the rules' settings, e.g. '{"slotUpdates":true}'`, parseSettings),
  ).action(async (namespace: Namespace, o: ConsolidateCliOptions) => {
    if (o.pages === 0) throw invalid('--pages must be at least 1');
    if (o.limit !== undefined && (o.limit < 1 || o.limit > 1000)) throw invalid('--limit must be 1..=1000');
    let interrupted = false;
    const interrupt = () => {
      interrupted = true;
      // A second signal ends the process at once.
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
    };
    process.once('SIGINT', interrupt);
    process.once('SIGTERM', interrupt);
    const tty = process.stderr.isTTY === true;
    let s: ConsolidateSummary;
    try {
      s = await withStore(o, (store) =>
        consolidatePages(
          store,
          namespace,
          o,
          () => interrupted,
          (p) => {
            if (tty)
              process.stderr.write(
                `\rconsolidate: ${p.pages} pages, ${p.examined} examined, ${p.duplicates} duplicates, ${p.supersedes} supersedes`,
              );
          },
        ),
      );
    } finally {
      if (tty) process.stderr.write('\n');
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
    }
    const done = s.nextCursor === null;
    show(o.json, s, () => {
      if (s.decisions.length > 0)
        printTable(
          ['decision', 'key', 'target', 'reason'],
          s.decisions.map((d) => ({
            decision: d.decision,
            key: d.key,
            target: targetCell(d.target),
            reason: d.reason,
          })),
        );
      printRecord({
        namespace: ns(s.namespace),
        pages: s.pages,
        examined: s.examined,
        duplicates: s.duplicates,
        supersedes: s.supersedes,
        done,
      });
    });
    if (!done) process.stderr.write(`consolidate: not done; resume with --cursor ${s.nextCursor}\n`);
    if (interrupted && !done) process.exitCode = EXIT_INTERRUPTED;
  });
}

export function coherenceCommands(program: Command): void {
  rememberCommand(program);
  contextCommand(program);
  consolidateCommand(program);
}
