/** LangGraph's checkpointer validation suite (1.1.x, unmodified) against EdgememSaver over local stores: memory and a file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validate } from '@langchain/langgraph-checkpoint-validation';
import { openStore } from 'edgemem';
import { EdgememSaver } from 'edgemem/langgraph';

validate<EdgememSaver>({
  checkpointerName: 'EdgememSaver (local, memory storage)',
  createCheckpointer: async () => new EdgememSaver(await openStore()),
  destroyCheckpointer: (saver) => saver.store.close(),
});

const dir = mkdtempSync(join(tmpdir(), 'edgemem-langgraph-validation-'));
let n = 0;

validate<EdgememSaver>({
  checkpointerName: 'EdgememSaver (local, file storage)',
  createCheckpointer: async () =>
    new EdgememSaver(await openStore({ storage: { file: join(dir, `saver-${n++}.db`) } })),
  destroyCheckpointer: (saver) => saver.store.close(),
  afterAll: () => rmSync(dir, { recursive: true, force: true }),
});
