// @ts-check
// The MemoryStore contract against openStore({ storage: { file } }) (Node, synchronous fs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { openStore } from 'edgemem';
import { contractSuite } from '../contract/suite.js';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-contract-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

contractSuite('local, file storage', (settings) =>
  openStore({ ...settings, storage: { file: join(dir, `store-${n++}.db`) } }),
);
