/** The optional judge of `--judge`: a module exporting the store's `judge` option, or an OpenAI-compatible endpoint. */

import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The judge named on the command line, or null: `--judge FILE.mjs` (its default export is passed as the store
 * option `judge` — a function or `{ url, model, apiKey? }` — and its `name` export names the model in the
 * results), or `--judge-url URL --judge-model MODEL` (an OpenAI-compatible chat endpoint; the key from
 * EDGEMEM_JUDGE_API_KEY when set).
 * @param {(name: string) => string | undefined} flag
 * @returns {Promise<{ judge: unknown, name: string } | null>}
 */
export async function judgeFromArgs(flag) {
  const file = flag('--judge');
  if (file) {
    const mod = await import(pathToFileURL(resolve(file)).href);
    if (mod.default === undefined) throw new Error(`${file}: no default export (the judge)`);
    return { judge: mod.default, name: String(mod.name ?? mod.default?.model ?? file) };
  }
  const url = flag('--judge-url');
  if (url) {
    const model = flag('--judge-model');
    if (!model) throw new Error('--judge-url needs --judge-model');
    const apiKey = process.env.EDGEMEM_JUDGE_API_KEY;
    return { judge: { url, model, ...(apiKey ? { apiKey } : {}) }, name: model };
  }
  return null;
}
