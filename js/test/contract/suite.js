// @ts-check
/**
 * The MemoryStore contract: behaviour every edgemem store must show, whatever implements it (the in-process
 * wasm store, the remote client `connect()`). `contractSuite(name, factory)` registers the tests with node:test;
 * `factory(settings)` returns a fresh, empty store with those settings. The cases live in contract/, a file per
 * surface; `rejectsWith` (contract/assertions.js) is re-exported for the other tests.
 */
import { after, describe } from 'node:test';
import { checkpointCases } from './checkpoints.js';
import { coherenceCases } from './coherence.js';
import { errorCases } from './errors.js';
import { exportImportCases } from './export-import.js';
import { feedCases } from './feed.js';
import { fidelityCases } from './fidelity.js';
import { historyCases } from './history.js';
import { memoryCases } from './memories.js';
import { pageSizeCases } from './page-size.js';
import { searchCases } from './search.js';
import { upkeepCases } from './upkeep.js';

export { rejectsWith } from './assertions.js';

/** @typedef {import('./assertions.js').FreshStore} StoreFactory */

/**
 * @param {string} name
 * @param {StoreFactory} factory
 */
export function contractSuite(name, factory) {
  describe(`MemoryStore contract: ${name}`, () => {
    /** @type {import('edgemem').MemoryStore[]} */
    const open = [];
    /** @type {StoreFactory} */
    const fresh = async (settings) => {
      const s = await factory(settings);
      open.push(s);
      return s;
    };
    after(async () => {
      for (const s of open) await s.close();
    });

    memoryCases(fresh);
    searchCases(fresh);
    historyCases(fresh);
    checkpointCases(fresh);
    coherenceCases(fresh);
    feedCases(fresh);
    upkeepCases(fresh);
    exportImportCases(fresh);
    pageSizeCases(fresh);
    fidelityCases(fresh);
    errorCases(fresh, factory);
  });
}
