/**
 * An agent's embedder, made from its `embedder` setting (schemas.ts `EmbedderSetting`): an OpenAI-compatible
 * endpoint whose key is read from a Worker secret when a call is made (never stored in the agent), or Workers AI
 * through the `AI` binding. A missing secret or binding is refused when the setting is saved (`checkEmbedder`)
 * and is EMBEDDING_FAILED if it disappears later, so the agent's other calls keep working.
 */

import type { z } from '@hono/zod-openapi';
import { EdgememError, type Embedder, type EmbedKind, openaiEmbeddings } from 'edgemem';
import type { Env, WorkersAi } from './env.js';
import { ApiError } from './http-errors.js';
import type { EmbedderSetting } from './schemas.js';

export type EmbedderSettingT = z.infer<typeof EmbedderSetting>;

/** The Worker's secret `name` (named by an agent's settings, so looked up by name at run time), if set. */
function secret(env: Env, name: string): string | undefined {
  const v: unknown = Reflect.get(env, name);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** INVALID_ARGUMENT when the setting names a secret or binding this Worker does not have. */
export function checkEmbedder(env: Env, s: EmbedderSettingT): void {
  if (s.kind === 'openai' && s.apiKeySecret && !secret(env, s.apiKeySecret)) {
    throw new ApiError(
      'INVALID_ARGUMENT',
      `embedder.apiKeySecret: this Worker has no secret ${s.apiKeySecret} (wrangler secret put ${s.apiKeySecret})`,
    );
  }
  if (s.kind === 'workers-ai' && !env.AI) {
    throw new ApiError(
      'INVALID_ARGUMENT',
      'embedder kind workers-ai needs an AI binding in the Worker\'s configuration ("ai": { "binding": "AI" })',
    );
  }
}

/** How long an agent waits for its embeddings endpoint. */
const EMBED_TIMEOUT_MS = 10_000;

const failed = (message: string) => new EdgememError('EMBEDDING_FAILED', message);

export function agentEmbedder(env: Env, s: EmbedderSettingT): Embedder {
  if (s.kind === 'workers-ai') return workersAi(env, s);
  // 10 s: a request waits for its embedding; an endpoint slower than that is a failure (EMBEDDING_FAILED), not a hang.
  const base = {
    url: s.url,
    model: s.model,
    dims: s.dims,
    ...(s.id ? { id: s.id } : {}),
    ...(s.normalized === undefined ? {} : { normalized: s.normalized }),
    inputType: s.inputType ?? false,
    prefixes: s.prefixes,
    timeoutMs: EMBED_TIMEOUT_MS,
  };
  // The Embedder's identity does not depend on the key; the key is read at each call (a rotated secret applies at once).
  const identity = openaiEmbeddings({ ...base, apiKey: undefined });
  return {
    id: identity.id,
    dims: identity.dims,
    normalized: identity.normalized,
    embed(texts: string[], kind: EmbedKind) {
      let apiKey: string | undefined;
      if (s.apiKeySecret) {
        apiKey = secret(env, s.apiKeySecret);
        if (!apiKey)
          return Promise.reject(failed(`the Worker secret ${s.apiKeySecret} that holds the embeddings key is not set`));
      }
      return openaiEmbeddings({ ...base, apiKey }).embed(texts, kind);
    },
  };
}

function workersAi(env: Env, s: Extract<EmbedderSettingT, { kind: 'workers-ai' }>): Embedder {
  return {
    id: `workers-ai:${s.model}`,
    dims: s.dims,
    normalized: true,
    async embed(texts: string[], kind: EmbedKind): Promise<Float32Array[]> {
      const ai: WorkersAi | undefined = env.AI;
      if (!ai) throw failed('this Worker has no AI binding');
      const prefix = s.prefixes?.[kind] ?? '';
      let out: unknown;
      try {
        out = await ai.run(s.model, { text: texts.map((t) => prefix + t) });
      } catch (e) {
        throw failed(`Workers AI ${s.model} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      const data = (out as { data?: unknown } | null)?.data;
      if (!Array.isArray(data) || data.length !== texts.length)
        throw failed(
          `Workers AI ${s.model} answered ${Array.isArray(data) ? data.length : 'no'} vectors for ${texts.length} texts`,
        );
      return data.map((v: unknown) => {
        if (!Array.isArray(v) || v.length !== s.dims || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
          throw failed(`Workers AI ${s.model} answered a vector that is not ${s.dims} finite numbers`);
        }
        return Float32Array.from(v as number[]);
      });
    },
  };
}
