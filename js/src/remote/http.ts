/** The remote client's HTTP transport: one JSON request to the edgemem Worker, its error body as an `EdgememError`. */

import { argument, codeOf, EdgememError, wellFormed } from '../api/errors.js';

/** A bearer token, or a function returning a current one (called before every request and reconnect). */
export type TokenSource = string | (() => string | Promise<string>);

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export type QueryValue = string | number | boolean | undefined | (string | number)[];

export interface HttpOptions {
  /** Base URL of the Worker, e.g. `https://memory.example.com` (a path prefix is kept). */
  url: string;
  token: TokenSource;
  /** Default: the global `fetch`. */
  fetch?: FetchLike | undefined;
}

/**
 * The URL of `path` (which starts with `/v1/`) under `base`, with `query` (undefined values are left out). A
 * query string with a lone surrogate is INVALID_ARGUMENT: a URL would carry it as U+FFFD, another value.
 */
export function apiUrl(base: string, path: string, query?: Record<string, QueryValue>): string {
  const u = new URL(base.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v]) u.searchParams.append(k, wellFormed(String(item), k));
  }
  return u.toString();
}

export async function resolveToken(t: TokenSource): Promise<string> {
  const token = typeof t === 'function' ? await t() : t;
  if (typeof token !== 'string' || token === '')
    throw new EdgememError('UNAUTHORIZED', 'no token: pass `token` (a string or a function returning one)');
  return token;
}

/** The EdgememError of a failed response: its body's `{ error: { code, message, oldestSeq? } }`, else INTERNAL with the status. */
export async function errorOf(res: Response): Promise<EdgememError> {
  const text = await res.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const err = (body as { error?: { code?: unknown; message?: unknown; oldestSeq?: unknown } } | undefined)?.error;
  if (err && typeof err.code === 'string') {
    const code = codeOf(err.code);
    const message = typeof err.message === 'string' ? err.message : err.code;
    const oldestSeq =
      typeof err.oldestSeq === 'number' && Number.isSafeInteger(err.oldestSeq) ? err.oldestSeq : undefined;
    return new EdgememError(code, message, oldestSeq === undefined ? undefined : { oldestSeq });
  }
  return new EdgememError('INTERNAL', `HTTP ${res.status} ${res.statusText}: ${text.slice(0, 200)}`);
}

export class HttpClient {
  readonly #base: string;
  readonly #token: TokenSource;
  readonly #fetch: FetchLike;

  constructor(options: HttpOptions) {
    if (typeof options.url !== 'string' || !/^https?:\/\//i.test(options.url)) {
      throw new EdgememError('INVALID_ARGUMENT', 'url must be an http(s) URL of an edgemem Worker');
    }
    this.#base = options.url;
    this.#token = options.token;
    const f = options.fetch ?? (globalThis.fetch as FetchLike | undefined);
    if (typeof f !== 'function') throw new EdgememError('INVALID_ARGUMENT', 'no global fetch here: pass options.fetch');
    this.#fetch = f.bind(globalThis) as FetchLike;
  }

  get base(): string {
    return this.#base;
  }

  token(): Promise<string> {
    return resolveToken(this.#token);
  }

  /** Sends one request; resolves with the parsed JSON body of a 2xx, rejects with an EdgememError otherwise. */
  async request<T>(
    method: string,
    path: string,
    options: { query?: Record<string, QueryValue>; body?: unknown } = {},
  ): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${await this.token()}` };
    let body: string | undefined;
    if (options.body !== undefined) {
      // (JSON.stringify throws on a cycle, a BigInt or a value nested too deep: the caller's input.)
      body = argument(`${method} ${path}`, () => JSON.stringify(options.body));
      headers['content-type'] = 'application/json';
    }
    const url = apiUrl(this.#base, path, options.query);
    let res: Response;
    try {
      res = await this.#fetch(url, { method, headers, body });
    } catch (e) {
      throw new EdgememError(
        'INTERNAL',
        `cannot reach the edgemem worker at ${this.#base}: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
    if (!res.ok) throw await errorOf(res);
    try {
      return (await res.json()) as T;
    } catch (e) {
      throw new EdgememError('INTERNAL', `the worker answered ${method} ${path} with a body that is not JSON`, {
        cause: e,
      });
    }
  }

  /**
   * Sends one request with a streamed or raw body (`init.body`, its content type in `init.headers`) and
   * resolves with the 2xx response itself (its body unread), rejects with an EdgememError otherwise.
   */
  async stream(
    method: string,
    path: string,
    init: { headers?: Record<string, string>; body?: BodyInit; signal?: AbortSignal } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { ...init.headers, authorization: `Bearer ${await this.token()}` };
    let res: Response;
    try {
      // duplex: a ReadableStream body is sent as it is read (Node's fetch asks for it; browsers ignore it).
      res = await this.#fetch(apiUrl(this.#base, path), {
        method,
        headers,
        body: init.body,
        signal: init.signal,
        duplex: 'half',
      } as RequestInit);
    } catch (e) {
      throw new EdgememError(
        'INTERNAL',
        `cannot reach the edgemem worker at ${this.#base}: ${e instanceof Error ? e.message : String(e)}`,
        { cause: e },
      );
    }
    if (!res.ok) throw await errorOf(res);
    return res;
  }
}
