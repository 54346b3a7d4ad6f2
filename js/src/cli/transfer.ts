/**
 * `export [--out FILE]` and `import FILE`: the whole store as NDJSON (`edgemem-export/2`), streamed through
 * `exportStream` / `importStream` in bounded memory, with the bytes written or read shown on stderr (progress.ts).
 * `export` writes to stdout without `--out`; `import -` reads stdin. An import goes into an empty store only.
 */

import { once } from 'node:events';
import * as fs from 'node:fs';
import type { Command } from 'commander';
import { EdgememError, invalid } from '../api/errors.js';
import type { MemoryStore } from '../api/types.js';
import { printJson } from './output.js';
import { ByteProgress } from './progress.js';
import { type TargetOptions, targetOptions, withStore } from './target.js';

/** Writes the export to `out` (waiting when it is full); returns the bytes written. */
async function writeExport(store: MemoryStore, out: NodeJS.WritableStream, progress: ByteProgress): Promise<number> {
  let written = 0;
  for await (const chunk of store.exportStream()) {
    const n = Buffer.byteLength(chunk);
    if (!out.write(chunk)) await once(out, 'drain');
    written += n;
    progress.add(n);
  }
  return written;
}

/** Opens `path` for writing, failing early (INVALID_ARGUMENT) when it cannot be created. */
async function openOut(path: string): Promise<fs.WriteStream> {
  const out = fs.createWriteStream(path);
  await Promise.race([
    once(out, 'open'),
    once(out, 'error').then(([e]) => Promise.reject(invalid(`cannot write ${path}: ${(e as Error).message}`))),
  ]);
  return out;
}

async function closeOut(out: fs.WriteStream): Promise<void> {
  out.end();
  await once(out, 'finish');
}

function exportCommand(program: Command): void {
  targetOptions(
    program
      .command('export')
      .description('the whole store as NDJSON (edgemem-export/2), to stdout or --out FILE')
      .option('--out <file>', 'write the export here instead of stdout'),
  ).action(async (o: TargetOptions & { out?: string }) => {
    await withStore(o, async (store) => {
      const estimate = process.stderr.isTTY ? (await store.stats()).dbBytes : 0;
      const out = o.out === undefined ? process.stdout : await openOut(o.out);
      const progress = new ByteProgress('export', estimate);
      try {
        const written = await writeExport(store, out, progress);
        if (out !== process.stdout) await closeOut(out as fs.WriteStream);
        progress.finish(o.out === undefined ? '' : `to ${o.out}`);
        if (o.json && o.out !== undefined) printJson({ out: o.out, bytes: written });
      } catch (e) {
        progress.abort();
        if (out !== process.stdout) (out as fs.WriteStream).destroy();
        throw e;
      }
    });
  });
}

/** The bytes of `source`, counted into `progress` as they pass. */
async function* counted(
  source: AsyncIterable<Buffer | string>,
  progress: ByteProgress,
): AsyncGenerator<Uint8Array | string> {
  for await (const piece of source) {
    progress.add(typeof piece === 'string' ? Buffer.byteLength(piece) : piece.length);
    yield piece;
  }
}

/** The file to import (`-`: stdin) and its size (0 when unknown). */
function openIn(file: string): { source: AsyncIterable<Buffer | string>; size: number } {
  if (file === '-') return { source: process.stdin, size: 0 };
  let size: number;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) throw new Error('not a file');
    size = st.size;
  } catch (e) {
    throw new EdgememError('INVALID_ARGUMENT', `cannot read ${file}: ${(e as Error).message}`);
  }
  return { source: fs.createReadStream(file), size };
}

function importCommand(program: Command): void {
  targetOptions(
    program
      .command('import')
      .description('load an NDJSON export into an empty store')
      .argument('<file>', 'the export (- reads stdin)'),
  ).action(async (file: string, o: TargetOptions) => {
    const { source, size } = openIn(file);
    await withStore(o, async (store) => {
      const progress = new ByteProgress('import', size);
      try {
        const result = await store.importStream(counted(source, progress));
        progress.finish(
          `${result.versions} versions, ${result.commits} commits, ${result.checkpoints} checkpoints, ${result.writes} writes`,
        );
        if (o.json) printJson(result);
      } catch (e) {
        progress.abort();
        throw e;
      }
    });
  });
}

export function transferCommands(program: Command): void {
  exportCommand(program);
  importCommand(program);
}
