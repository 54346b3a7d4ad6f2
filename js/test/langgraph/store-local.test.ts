/** The EdgememStore suite over local stores: memory and a file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from 'edgemem';
import { storeSuite } from './store-suite.js';

storeSuite('local, memory storage', (dims) => openStore({ dims }));

const dir = mkdtempSync(join(tmpdir(), 'edgemem-langgraph-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
storeSuite('local, file storage', (dims) => openStore({ dims, storage: { file: join(dir, `store-${n++}.db`) } }));
