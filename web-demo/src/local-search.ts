/**
 * "Search": lexical (FTS5 BM25) always; vector or hybrid when the store has an embedder (it embeds the query
 * text itself, in its worker). The line above the results says which mode actually ran, and why when it is not
 * the one asked for.
 */
import type { SearchMode, SearchQuery } from 'edgemem';
import { busy, byId, errorText, h, preview, say } from './dom.ts';
import type { LocalApp } from './local-app.ts';

type Wanted = SearchMode | 'auto';

/** The mode to run for `wanted`, and a note when it differs from what was asked. */
function plan(app: LocalApp, wanted: Wanted): { mode: SearchMode; note: string } {
  const v = app.vectors();
  if (!v.on) {
    const note = `lexical only: ${v.reason}`;
    return { mode: 'lexical', note: wanted === 'vector' || wanted === 'hybrid' ? `${wanted} asked, ${note}` : note };
  }
  if (wanted === 'auto') return { mode: 'hybrid', note: 'text and its embedding, fused' };
  return {
    mode: wanted,
    note:
      wanted === 'lexical'
        ? 'text only (BM25)'
        : wanted === 'vector'
          ? 'embedding only (cosine, HNSW)'
          : 'text and its embedding, fused',
  };
}

export function mountSearch(app: LocalApp): void {
  const form = byId<HTMLFormElement>('search-form');
  const modeLine = byId('search-mode');
  const results = byId<HTMLOListElement>('search-results');

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const text = String(data.get('q') ?? '').trim();
    const { mode, note } = plan(app, String(data.get('mode') ?? 'auto') as Wanted);
    void busy(form.querySelector('button[type=submit]'), async () => {
      try {
        const query: SearchQuery = { mode, k: 10, text };
        const hits = await app.client.call('search', query);
        results.replaceChildren(
          ...hits.map((hit) =>
            h(
              'li',
              {},
              h('span', { class: 'path' }, `${hit.namespace.join('/')}/${hit.key}`),
              ' ',
              h('span', {}, preview(hit.text ?? hit.value)),
              ' ',
              h(
                'span',
                { class: 'meta' },
                `score ${hit.score.toFixed(3)}` +
                  (hit.lexicalRank !== null ? ` · lexical #${hit.lexicalRank}` : '') +
                  (hit.vectorRank !== null ? ` · vector #${hit.vectorRank}` : ''),
              ),
            ),
          ),
        );
        say(
          modeLine,
          `Ran: ${mode} — ${note}. ${hits.length} hit${hits.length === 1 ? '' : 's'}.`,
          hits.length ? 'ok' : 'info',
        );
        modeLine.dataset.mode = mode;
      } catch (e) {
        results.replaceChildren();
        say(modeLine, `Search failed — ${errorText(e)}`, 'error');
      }
    });
  });
}
