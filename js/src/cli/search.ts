/**
 * `search [TEXT] [--mode] [--k] [--vector] [--prefix] [--as-of] [--valid-at]`: lexical, vector or hybrid search, best
 * first, over the facts valid now (or at `--valid-at`).
 */

import { type Command, Option } from 'commander';
import { invalid } from '../api/errors.js';
import { SEARCH_MODES } from '../api/generated/engine.js';
import type { AsOf, Namespace, SearchMode, SearchQuery, ValidAt } from '../api/types.js';
import { asOfOption, parseCount, parseNamespace, parseVector, validAtOption } from './args.js';
import { ns, printTable, show, validSpan, withValidColumn } from './output.js';
import { type TargetOptions, targetOptions, withStore } from './target.js';

interface SearchOptions extends TargetOptions {
  mode?: SearchMode;
  k?: number;
  vector?: number[];
  prefix?: Namespace;
  asOf?: AsOf;
  validAt?: ValidAt;
}

export function searchCommand(program: Command): void {
  targetOptions(
    program
      .command('search')
      .description('search memories: lexical (text), vector (--vector) or hybrid (both)')
      .argument('[text]', 'the query text')
      .addOption(
        new Option('--mode <mode>', 'default: hybrid with text and --vector, else whichever is given').choices(
          SEARCH_MODES,
        ),
      )
      .option('--k <n>', 'hits wanted (default 10)', parseCount)
      .option('--vector <json>', "the query vector, a JSON array of the store's dims numbers", parseVector)
      .option('--prefix <ns>', 'only under this namespace, a/b', parseNamespace)
      .addOption(asOfOption())
      .addOption(validAtOption()),
  ).action(async (text: string | undefined, o: SearchOptions) => {
    if (text === undefined && o.vector === undefined) throw invalid('search needs TEXT, --vector JSON, or both');
    const query: SearchQuery = { k: o.k ?? 10 };
    if (text !== undefined) query.text = text;
    if (o.vector !== undefined) query.vector = o.vector;
    if (o.mode !== undefined) query.mode = o.mode;
    if (o.prefix !== undefined) query.namespace = o.prefix;
    if (o.asOf !== undefined) query.asOf = o.asOf;
    if (o.validAt !== undefined) query.validAt = o.validAt;
    const hits = await withStore(o, (store) => store.search(query));
    show(o.json, hits, () => {
      const rows = hits.map((h) => ({
        score: Number(h.score.toPrecision(4)),
        namespace: ns(h.namespace),
        key: h.key,
        valid: validSpan(h),
        value: h.value,
        text: h.text,
      }));
      printTable(withValidColumn(['score', 'namespace', 'key', 'value', 'text'], rows), rows);
    });
  });
}
