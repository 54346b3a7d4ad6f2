// @ts-check
/**
 * The MemoryStore contract: behaviour every edgemem store must show, whatever implements it (the in-process
 * wasm store, the remote client `connect()`). `contractSuite(name, factory)` registers the tests with node:test;
 * `factory(settings)` returns a fresh, empty store with those settings. The cases live in contract/, a file per
 * surface; `rejectsWith` (contract/assertions.js) is re-exported for the other tests.
 */
import { after, describe } from 'node:test';
import { checkpointCases } from './contract/checkpoints.js';
import { errorCases } from './contract/errors.js';
import { exportImportCases } from './contract/export-import.js';
import { feedCases } from './contract/feed.js';
import { fidelityCases } from './contract/fidelity.js';
import { historyCases } from './contract/history.js';
import { memoryCases } from './contract/memories.js';
import { pageSizeCases } from './contract/page-size.js';
import { searchCases } from './contract/search.js';
import { upkeepCases } from './contract/upkeep.js';

export { rejectsWith } from './contract/assertions.js';

/** @typedef {import('./contract/assertions.js').FreshStore} StoreFactory */

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
    feedCases(fresh);
    upkeepCases(fresh);
    exportImportCases(fresh);
    pageSizeCases(fresh);
    fidelityCases(fresh);
    errorCases(fresh, factory);
  });
}
