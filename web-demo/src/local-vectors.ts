/**
 * "Vectors": the built-in e5 by default (run in the store's worker, weights loaded once and cached), or an
 * embedding endpoint (URL, key, model; kept in this tab's sessionStorage only), and the plain statement of the
 * mode search will run in. When the store was made for other vectors, it offers to recreate it with the chosen
 * embedder (that erases it: a store's dims and embedder are fixed).
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

  const mb = (n: number) => (n / 1e6).toFixed(1);

  function draw(): void {
    const v = app.vectors();
    const source = app.embedder
      ? `the endpoint (${app.embedder.model || app.embedder.url})`
      : "the built-in e5, in this page's store worker";
    clear.hidden = !app.embedder;
    if (app.loading)
      say(
        status,
        `Loading the built-in e5 model: ${mb(app.loading.loaded)}${app.loading.total ? ` of ${mb(app.loading.total)}` : ''} MB…`,
        'info',
      );
    else if (v.on)
      say(
        status,
        `Vectors on: ${v.dims} dimensions from ${source} (${v.id}). Search runs hybrid (or the mode you pick); the store embeds new memories.`,
        'ok',
      );
    else say(status, `Lexical search only — ${v.reason}.`, 'error');
    recreate.hidden = v.on || !v.recreate;
    if (!v.on && v.recreate)
      recreate.textContent = `Recreate the local store with vectors from ${app.embedder ? 'the endpoint' : 'the built-in e5'} (erases it)`;
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
    void busy(clear, async () => {
      try {
        await app.setEmbedder(null);
      } catch (e) {
        say(status, errorText(e), 'error');
      }
    });
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
