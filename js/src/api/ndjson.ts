/**
 * The streamed export format on the TypeScript side: NDJSON sources (text or bytes, in pieces of any
 * size) cut into whole lines, lines grouped into bounded chunks for the engine's `importChunk`, and the
 * conversion between the one-document export (`ExportDoc`, `edgemem-export/1`) and the lines of the
 * streamed one (`edgemem-export/2`: header, version…, commits…, checkpoint…, write…, end).
 */
import { checkSafe, EdgememError, invalid, wellFormed } from './errors.js';
import type { ExportDoc, NdjsonSource } from './types.js';

/** An export document's parts, as `checkExportSeqs` walks them before the engine checks their shapes. */
// biome-ignore lint/suspicious/noExplicitAny: untrusted JSON, probed field by field
type Loose = any;

/** The longest line an import takes, in UTF-16 units (a memory or checkpoint as JSON is far shorter). */
export const MAX_LINE_CHARS = 16 << 20;
/** Text per `importChunk` call (whole lines; a longer single line goes alone). */
export const IMPORT_CHUNK_CHARS = 1 << 20;

type Raw = Record<string, unknown>;

async function* pieces(source: NdjsonSource): AsyncGenerator<string | Uint8Array> {
  if (typeof (source as ReadableStream).getReader === 'function') {
    const reader = (source as ReadableStream<string | Uint8Array>).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
    }
  }
  if (typeof source === 'string') {
    yield source;
    return;
  }
  if (source instanceof Uint8Array) {
    yield source;
    return;
  }
  if (Symbol.asyncIterator in (source as object) || Symbol.iterator in (source as object)) {
    for await (const p of source as AsyncIterable<string | Uint8Array>) yield p;
    return;
  }
  throw invalid('an NDJSON source is a string, bytes, a ReadableStream or an (async) iterable of strings or bytes');
}

/**
 * The non-blank lines of an NDJSON source, without their line ends; PAYLOAD_TOO_LARGE past `maxLine`, INVALID_ARGUMENT
 * for a line with a lone surrogate (text sources: UTF-8 would carry it as U+FFFD).
 */
export async function* ndjsonLines(source: NdjsonSource, maxLine = MAX_LINE_CHARS): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let rest = '';
  const tooLong = () => new EdgememError('PAYLOAD_TOO_LARGE', `an NDJSON line is longer than ${maxLine} characters`);
  for await (const p of pieces(source)) {
    let text: string;
    if (typeof p === 'string') text = p;
    else if (p instanceof Uint8Array) {
      try {
        text = decoder.decode(p, { stream: true });
      } catch {
        throw invalid('the NDJSON stream is not valid UTF-8');
      }
    } else throw invalid('an NDJSON source yields strings or bytes');
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      const line = rest + text.slice(start, nl);
      rest = '';
      start = nl + 1;
      if (line.length > maxLine) throw tooLong();
      if (line.trim()) yield wellFormed(line, 'an NDJSON line');
    }
    rest += text.slice(start);
    if (rest.length > maxLine) throw tooLong();
  }
  try {
    rest += decoder.decode();
  } catch {
    throw invalid('the NDJSON stream is not valid UTF-8');
  }
  if (rest.trim()) yield wellFormed(rest, 'an NDJSON line');
}

/** Whole lines of `lines` joined into chunks of about `chunkChars` (one longer line goes alone). */
export async function* lineChunks(
  lines: AsyncIterable<string>,
  chunkChars = IMPORT_CHUNK_CHARS,
): AsyncGenerator<string> {
  let chunk: string[] = [];
  let size = 0;
  for await (const line of lines) {
    if (size > 0 && size + line.length > chunkChars) {
      yield chunk.join('\n');
      chunk = [];
      size = 0;
    }
    chunk.push(line);
    size += line.length + 1;
  }
  if (chunk.length) yield chunk.join('\n');
}

/** A chunk of an import and where it sits in its stream: the engine accepts a `header` only at the start of the first, an `end` only at the close of the last. */
export interface PlacedChunk {
  ndjson: string;
  first: boolean;
  last: boolean;
}

/**
 * `chunks` with their places, each held back until the next one is known, so the last chunk is known to be the
 * last: an import's verdict is one for the whole stream (a stream that goes on after its `end` line is refused,
 * and nothing of it stays).
 */
export async function* placedChunks(chunks: AsyncIterable<string>): AsyncGenerator<PlacedChunk> {
  let held: string | undefined;
  let first = true;
  for await (const chunk of chunks) {
    if (held !== undefined) {
      yield { ndjson: held, first, last: false };
      first = false;
    }
    held = chunk;
  }
  if (held !== undefined) yield { ndjson: held, first, last: true };
}

/** The streamed export's lines of a one-document export. */
export function* documentLines(doc: ExportDoc): Generator<string> {
  if (typeof doc !== 'object' || doc === null) throw invalid('import takes an export document');
  if (doc.format !== 'edgemem-export/1') throw invalid(`unknown export format ${JSON.stringify(doc.format)}`);
  const list = (v: unknown, what: string): Raw[] => {
    if (!Array.isArray(v)) throw invalid(`the export document's ${what} must be an array`);
    return v as Raw[];
  };
  const versions = list(doc.versions, 'versions');
  const commits = list(doc.commits, 'commits');
  const checkpoints = list(doc.checkpoints, 'checkpoints');
  const memories = list(doc.memories, 'memories');
  const live = versions.filter((v) => v && typeof v === 'object' && v.seq_to == null).length;
  if (live !== memories.length)
    throw invalid("export's memories are not its live versions (each memory needs its version with seq_to null)");
  yield JSON.stringify({
    kind: 'header',
    format: 'edgemem-export/2',
    dims: doc.dims,
    metric: doc.metric,
    seq: doc.seq,
  });
  for (const v of versions) yield JSON.stringify({ kind: 'version', ...v });
  for (let i = 0; i < commits.length; i += 1000)
    yield JSON.stringify({ kind: 'commits', items: commits.slice(i, i + 1000) });
  let writes = 0;
  for (const c of checkpoints) {
    yield JSON.stringify({ kind: 'checkpoint', ...c });
    writes += Array.isArray(c?.pending_writes) ? c.pending_writes.length : 0;
  }
  yield JSON.stringify({
    kind: 'end',
    history_floor: doc.history_floor,
    versions: versions.length,
    commits: commits.length,
    checkpoints: checkpoints.length,
    writes,
  });
}

/** A one-document export assembled from the streamed export's lines (held whole in memory). */
export async function documentFromLines(lines: AsyncIterable<string>): Promise<ExportDoc> {
  const doc: Raw = { format: 'edgemem-export/1', memories: [], versions: [], commits: [], checkpoints: [] };
  const versions = doc.versions as Raw[];
  const memories = doc.memories as Raw[];
  const commits = doc.commits as unknown[];
  const checkpoints = doc.checkpoints as Raw[];
  const byId = new Map<string, Raw & { pending_writes: Raw[] }>();
  let ended = false;
  for await (const text of lines) {
    const { kind, ...line } = JSON.parse(text) as Raw;
    switch (kind) {
      case 'header':
        Object.assign(doc, { dims: line.dims, metric: line.metric, seq: line.seq });
        break;
      case 'version':
        versions.push(line);
        if (line.seq_to == null) memories.push(line.memory as Raw);
        break;
      case 'commits':
        commits.push(...(line.items as unknown[]));
        break;
      case 'checkpoint': {
        const c: Raw & { pending_writes: Raw[] } = { ...line, pending_writes: [] };
        byId.set(JSON.stringify([c.thread_id, c.checkpoint_ns, c.checkpoint_id]), c);
        checkpoints.push(c);
        break;
      }
      case 'write': {
        const c = byId.get(JSON.stringify([line.thread_id, line.checkpoint_ns, line.checkpoint_id]));
        c?.pending_writes.push({ task_id: line.task_id, idx: line.idx, channel: line.channel, value: line.value });
        break;
      }
      case 'end':
        doc.history_floor = line.history_floor;
        ended = true;
        break;
      default:
        throw new EdgememError('INTERNAL', `unknown export line kind ${JSON.stringify(kind)}`);
    }
  }
  if (!ended) throw new EdgememError('INTERNAL', 'the export stream ended before its end line');
  return doc as unknown as ExportDoc;
}

/**
 * Checks every seq and version of an export document before import: beyond 2^53-1 the store would hand
 * back rounded numbers later, so it is INVALID_ARGUMENT now. (Shapes are left to the engine's checks.)
 */
export function checkExportSeqs(doc: ExportDoc): void {
  const list = (v: unknown): Loose[] => (Array.isArray(v) ? v : []);
  const num = (n: unknown, what: string) => {
    if (n !== undefined && n !== null) checkSafe(n, what);
  };
  num(doc.seq, 'doc.seq');
  num(doc.history_floor, 'doc.history_floor');
  const memory = (m: Loose, what: string) => {
    if (typeof m !== 'object' || m === null) return;
    num(m.seq, `${what}.seq`);
    num(m.version, `${what}.version`);
  };
  for (const [i, m] of list(doc.memories).entries()) memory(m, `doc.memories[${i}]`);
  for (const [i, v] of list(doc.versions).entries()) {
    if (typeof v !== 'object' || v === null) continue;
    memory(v.memory, `doc.versions[${i}].memory`);
    num(v.seq_to, `doc.versions[${i}].seq_to`);
    num(v.id, `doc.versions[${i}].id`);
  }
  for (const [i, c] of list(doc.commits).entries()) num(list(c)[0], `doc.commits[${i}][0]`);
  for (const [i, c] of list(doc.checkpoints).entries()) num(c?.seq, `doc.checkpoints[${i}].seq`);
}
