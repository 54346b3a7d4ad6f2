// @ts-check
// Child of reembed.test.js: opens the store file argv[2] with the salted trigram embedder and re-embeds it,
// killing itself (SIGKILL: no close, no flush) once `argv[3]` memories are done — a crash in the middle.
import { openStore } from 'edgemem';
import { trigramEmbedder } from './trigram-embedder.js';

const [file, killAfter] = [process.argv[2], Number(process.argv[3])];
const s = await openStore({ embedder: trigramEmbedder({ salt: 'v2' }), storage: { file }, reembed: true });
await s.reembed({
  onProgress: ({ done }) => {
    if (done >= killAfter) process.kill(process.pid, 'SIGKILL');
  },
});
process.exit(3); // not reached when the kill works
