// @ts-check
// The MemoryStore contract against openStore({ storage: 'memory' }).
import { openStore } from 'edgemem';
import { contractSuite } from '../contract/suite.js';

contractSuite('local, memory storage', (settings) => openStore({ ...settings, storage: 'memory' }));
