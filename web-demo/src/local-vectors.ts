/**
 * "Vectors": the embedding endpoint form (URL, key, model; kept in this tab's sessionStorage only) and the
 * plain statement of the mode search will run in. When the store's vector length does not match the
 * endpoint's, it offers to recreate the store with the endpoint's (that erases it: a store's dims are fixed).
 */
import { busy, byId, errorText, say } from './dom.ts';
import type { LocalApp } from './local-app.ts';

export function mountVectors(app: LocalApp): void {
  const form = byId<HTMLFormElement>('embed-form');
  const clear = byId<HTMLButtonElement>('embed-clear');
  const recreate = byId<HTMLButtonElement>('embed-recreate');
  const status = byId('vector-mode');
  const url = byId<HTMLInputElement>('embed-url');
  const key = byId<HTMLInputElement>('embed-key');
  const model = byId<HTMLInputElement>('embed-model');

  if (app.embedder) {
    url.value = app.embedder.url;
    key.value = app.embedder.key;
    model.value = app.embedder.model;
  }

  function draw(): void {
    const v = app.vectors();
    if (v.on) say(status, `Vectors on: ${v.dims} dimensions from ${app.embedder?.model || app.embedder?.url}. Search runs hybrid (or the mode you pick); new memories are embedded.`, 'ok');
    else say(status, `Lexical search only — ${v.reason}.`, app.embedder ? 'error' : 'info');
    recreate.hidden = v.on || v.fixDims === undefined;
    if (!v.on && v.fixDims !== undefined) recreate.textContent = `Recreate the local store with ${v.fixDims}-dimension vectors (erases it)`;
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(form.querySelector('button[type=submit]'), async () => {
      try {
        await app.setEmbedder({ url: url.value.trim(), key: key.value.trim(), model: model.value.trim() });
      } catch (e) {
        say(status, errorText(e), 'error');
      }
    });
  });

  clear.addEventListener('click', () => {
    url.value = key.value = '';
    void app.setEmbedder(null);
  });

  recreate.addEventListener('click', () => {
    if (!confirm('Recreate the local store with vectors? Its memories, history and checkpoints are erased.')) return;
    void busy(recreate, async () => {
      try {
        await app.reset();
      } catch (e) {
        say(status, `Not recreated — ${errorText(e)}`, 'error');
      }
    });
  });

  app.onChange(draw);
}
