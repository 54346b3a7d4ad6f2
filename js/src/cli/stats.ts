/** `stats`: the store's counts, sizes, caps, latest seq and vector index state. */

import type { Command } from 'commander';
import { printRecord, show } from './output.js';
import { type TargetOptions, targetOptions, withStore } from './target.js';

export function statsCommand(program: Command): void {
  targetOptions(program.command('stats').description("the store's counts, sizes, caps and latest seq")).action(
    async (o: TargetOptions) => {
      const stats = await withStore(o, (store) => store.stats());
      show(o.json, stats, () => printRecord({ ...stats }));
    },
  );
}
