/**
 * The optional embedding endpoint (instead of the built-in e5): any OpenAI-compatible `POST {url}` with
 * `{ model, input }` answering `{ data: [{ embedding }] }`. The URL, key and model are entered by the user and
 * kept in this tab's sessionStorage only; the store worker calls the endpoint directly (it must allow this origin:
 * CORS), so the key never passes through the demo's server or the edgemem Worker. `embed` is its probe.
 */

export interface EmbedderConfig {
  url: string;
  key: string;
  model: string;
}

const KEY = 'edgemem-demo:embedder';

export function loadEmbedder(): EmbedderConfig | null {
  try {
    const c = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as EmbedderConfig | null;
    return c && typeof c.url === 'string' && c.url ? c : null;
  } catch {
    return null;
  }
}

export function saveEmbedder(config: EmbedderConfig | null): void {
  if (config) sessionStorage.setItem(KEY, JSON.stringify(config));
  else sessionStorage.removeItem(KEY);
}

/** Embeds `texts` (one request); rejects with a message fit to show when the endpoint fails or answers oddly. */
export async function embed(config: EmbedderConfig, texts: string[]): Promise<number[][]> {
  let res: Response;
  try {
    res = await fetch(config.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(config.key ? { authorization: `Bearer ${config.key}` } : {}),
      },
      body: JSON.stringify({ model: config.model, input: texts }),
    });
  } catch (e) {
    throw new Error(
      `the embedding endpoint could not be reached (network or CORS): ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  if (!res.ok)
    throw new Error(`the embedding endpoint answered HTTP ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const body = (await res.json()) as { data?: { embedding?: unknown; index?: number }[] };
  const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
  const vectors = data.map((d) => d.embedding);
  if (
    vectors.length !== texts.length ||
    !vectors.every((v) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number'))
  ) {
    throw new Error('the embedding endpoint did not answer { data: [{ embedding: number[] }] } for each input');
  }
  return vectors as number[][];
}
