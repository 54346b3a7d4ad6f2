/** `openaiEmbeddings()`: an `Embedder` over any OpenAI-compatible `POST /v1/embeddings` endpoint, with fetch. */

import { invalid } from '../api/errors.js';
import { type Embedder, type EmbedKind, embeddingFailed } from './embedder.js';

export interface OpenAIEmbeddingsOptions {
  /** The API base (`https://api.openai.com/v1`) or the embeddings URL itself (ending in `/embeddings`). */
  url: string;
  model: string;
  /** The length of the vectors the model returns (checked on every answer). */
  dims: number;
  /** Sent as `Authorization: Bearer <apiKey>`; none for a local server. */
  apiKey?: string;
  /** Recorded by stores as the embedder's id (default `openai:<model>`). */
  id?: string;
  /** Whether the model's vectors have unit length (default true, as OpenAI's are). */
  normalized?: boolean;
  /**
   * Send `input_type: 'query' | 'passage'` in the request body (NVIDIA NIM, edgemem's local server and other
   * servers of asymmetric models read it; OpenAI does not). Default false.
   */
  inputType?: boolean;
  /** Text put before each input by kind, e.g. `{ query: 'query: ', passage: 'passage: ' }` for e5 served plainly. */
  prefixes?: Partial<Record<EmbedKind, string>>;
  /** Sent as the `dimensions` field (models that can shorten their vectors). Default: not sent. */
  sendDimensions?: boolean;
  /** Milliseconds before a request is abandoned (default 30,000). */
  timeoutMs?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

/** The endpoint a `url` option names: a base gets `/embeddings` appended. */
export function embeddingsUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalid(`embeddings url ${JSON.stringify(url)} is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw invalid(`embeddings url must be http(s), got ${u.protocol}`);
  const s = u.toString();
  return /\/embeddings\/?$/.test(u.pathname) ? s : `${s.replace(/\/$/, '')}/embeddings`;
}

/** An embedder that posts `{ model, input }` to an OpenAI-compatible endpoint. Failures are EMBEDDING_FAILED. */
export function openaiEmbeddings(options: OpenAIEmbeddingsOptions): Embedder {
  if (typeof options !== 'object' || options === null)
    throw invalid('openaiEmbeddings takes { url, model, dims, apiKey? }');
  const endpoint = embeddingsUrl(options.url);
  const { model, dims, apiKey } = options;
  if (typeof model !== 'string' || model === '') throw invalid('openaiEmbeddings: model must be a non-empty string');
  if (typeof dims !== 'number' || !Number.isSafeInteger(dims) || dims < 1)
    throw invalid('openaiEmbeddings: dims must be a positive integer');
  if (apiKey !== undefined && typeof apiKey !== 'string') throw invalid('openaiEmbeddings: apiKey must be a string');
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const host = new URL(endpoint).host;

  async function embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
    const prefix = options.prefixes?.[kind] ?? '';
    const body: Record<string, unknown> = { model, input: texts.map((t) => prefix + t), encoding_format: 'float' };
    if (options.inputType) body.input_type = kind;
    if (options.sendDimensions) body.dimensions = dims;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    let res: Response;
    try {
      res = await doFetch(endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      throw embeddingFailed(
        `the embeddings endpoint at ${host} could not be reached: ${e instanceof Error ? e.message : String(e)}`,
        e,
      );
    }
    const text = await res.text().catch(() => '');
    if (!res.ok)
      throw embeddingFailed(`the embeddings endpoint at ${host} answered HTTP ${res.status}: ${text.slice(0, 300)}`);
    let parsed: { data?: { embedding?: unknown; index?: unknown }[] };
    try {
      parsed = JSON.parse(text);
    } catch {
      throw embeddingFailed(`the embeddings endpoint at ${host} answered something other than JSON`);
    }
    const data = parsed?.data;
    if (!Array.isArray(data) || data.length !== texts.length) {
      throw embeddingFailed(
        `the embeddings endpoint at ${host} answered ${Array.isArray(data) ? data.length : 'no'} embeddings for ${texts.length} inputs`,
      );
    }
    const out: Float32Array[] = new Array(texts.length);
    data.forEach((d, i) => {
      const at = typeof d?.index === 'number' ? d.index : i;
      const v = d?.embedding;
      const isVector =
        Array.isArray(v) && v.length === dims && v.every((x) => typeof x === 'number' && Number.isFinite(x));
      if (!Number.isInteger(at) || at < 0 || at >= texts.length || out[at] || !isVector) {
        throw embeddingFailed(
          `the embeddings endpoint at ${host} answered a malformed embedding (index ${String(d?.index)}, expected ${dims} numbers)`,
        );
      }
      out[at] = Float32Array.from(v as number[]);
    });
    return out;
  }

  return { id: options.id ?? `openai:${model}`, dims, normalized: options.normalized ?? true, embed };
}
