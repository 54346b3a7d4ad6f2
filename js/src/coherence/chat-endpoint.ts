/** A caller's chat model for `remember`: a function, or an OpenAI-compatible `POST /chat/completions` endpoint. */

import { EdgememError, invalid } from '../api/errors.js';
import type { ChatMessage } from '../api/types.js';

/** An OpenAI-compatible chat endpoint, configured as the embedders are. */
export interface ChatEndpoint {
  /** The API base (`https://api.openai.com/v1`) or the completions URL itself (ending in `/chat/completions`). */
  url: string;
  model: string;
  /** Sent as `Authorization: Bearer <apiKey>`; none for a local server. */
  apiKey?: string;
  /** Milliseconds before a request is abandoned (default 30,000). */
  timeoutMs?: number;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
}

/** MODEL_FAILED: the caller's model failed or answered badly; nothing was written. */
export function modelFailed(message: string, cause?: unknown): EdgememError {
  return new EdgememError('MODEL_FAILED', message, cause === undefined ? undefined : { cause });
}

/** Whether `o` is a `ChatEndpoint` (else a function is expected). */
export function isChatEndpoint(o: unknown): o is ChatEndpoint {
  return typeof o === 'object' && o !== null && typeof (o as ChatEndpoint).url === 'string';
}

/** The completions URL of an endpoint's `url`. */
function completionsUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalid(`chat url ${JSON.stringify(url)} is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalid(`chat url must be http(s), got ${u.protocol}`);
  const s = u.toString();
  return /\/chat\/completions\/?$/.test(u.pathname) ? s : `${s.replace(/\/$/, '')}/chat/completions`;
}

/** One completion of `messages` at temperature 0: the answer's text. Failures are MODEL_FAILED. */
export async function complete(endpoint: ChatEndpoint, messages: ChatMessage[]): Promise<string> {
  if (typeof endpoint.model !== 'string' || endpoint.model === '') throw invalid('a chat endpoint needs its `model`');
  const url = completionsUrl(endpoint.url);
  const host = new URL(url).host;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  let res: Response;
  try {
    res = await (endpoint.fetch ?? fetch)(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: endpoint.model, messages, temperature: 0 }),
      signal: AbortSignal.timeout(endpoint.timeoutMs ?? 30_000),
    });
  } catch (e) {
    throw modelFailed(`the chat endpoint at ${host} could not be reached: ${e instanceof Error ? e.message : e}`, e);
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) throw modelFailed(`the chat endpoint at ${host} answered HTTP ${res.status}: ${text.slice(0, 300)}`);
  let content: unknown;
  try {
    content = JSON.parse(text)?.choices?.[0]?.message?.content;
  } catch {
    throw modelFailed(`the chat endpoint at ${host} answered something other than JSON`);
  }
  if (typeof content !== 'string') throw modelFailed(`the chat endpoint at ${host} answered no message content`);
  return content;
}

/** Runs a caller's function, turning what it throws into MODEL_FAILED. */
export async function callModel<T>(what: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof EdgememError && e.code === 'MODEL_FAILED') throw e;
    throw modelFailed(`the ${what} failed: ${e instanceof Error ? e.message : String(e)}`, e);
  }
}
