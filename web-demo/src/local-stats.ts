/**
 * "Stats and cap": the store's counts and bytes, its cap on live memories (pinned ones count, but only unpinned
 * ones are evicted) with how many the cap has
 * evicted (evict events still in the change feed), the cap's form (it reopens the store), and erasing the store.
 */
import { busy, byId, errorText, h, say } from './dom.ts';
import type { LocalApp } from './local-app.ts';

function kib(n: number): string {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`;
}

export function mountStats(app: LocalApp): void {
  const list = byId<HTMLDListElement>('stats');
  const capForm = byId<HTMLFormElement>('cap-form');
  const capInput = byId<HTMLInputElement>('cap');
  const erase = byId<HTMLButtonElement>('erase');
  const status = byId('stats-status');

  async function draw(): Promise<void> {
    const s = app.stats;
    if (!s) return;
    // Evictions still in the retained change feed (older events were pruned: start at the oldest kept one).
    let evictions = '0';
    if (s.oldestEventSeq !== null) {
      try {
        const evs = await app.client.call('changes', s.oldestEventSeq - 1, {
          filter: { kinds: ['evict'] },
          limit: 10_000,
        });
        evictions = evs.length === 10_000 ? '10,000 or more' : String(evs.length);
      } catch (e) {
        evictions = `unknown (${errorText(e)})`;
      }
    }
    const rows: [string, string][] = [
      ['Memories', `${s.memories} (${s.pinnedMemories} pinned)`],
      ['Cap', s.maxMemories ? `${s.memories} of ${s.maxMemories} memories` : 'none'],
      ['Evictions', evictions],
      ['Memory bytes', kib(s.bytes)],
      ['Latest seq', String(s.seq)],
      ['Versions kept', String(s.versions)],
      ['Checkpoints', String(s.checkpoints)],
      [
        'Vectors',
        s.dims
          ? `${s.dims} dims (${s.metric}): ${s.indexVectors} in the index, ${s.indexPending} buffered`
          : 'off (store created with dims 0)',
      ],
      ['Database (OPFS)', kib(s.dbBytes)],
    ];
    list.replaceChildren(...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', { 'data-stat': k }, v)]));
    if (document.activeElement !== capInput) capInput.value = String(app.cap);
  }

  capForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const n = Number(capInput.value);
    if (!Number.isSafeInteger(n) || n < 0)
      return say(status, 'The cap is a whole number of memories (0: no cap).', 'error');
    void busy(capForm.querySelector('button'), async () => {
      try {
        await app.setCap(n);
        say(
          status,
          n ? `Cap set to ${n} memories: the next writes evict the least recently used past it.` : 'No cap.',
          'ok',
        );
      } catch (e) {
        say(status, `Cap not set — ${errorText(e)}`, 'error');
      }
    });
  });

  erase.addEventListener('click', () => {
    if (!confirm('Erase the local store: every memory, its history and the checkpoints?')) return;
    void busy(erase, async () => {
      try {
        await app.reset();
        say(status, 'Erased: a new empty store.', 'ok');
      } catch (e) {
        say(status, `Not erased — ${errorText(e)}`, 'error');
      }
    });
  });

  app.onChange(draw);
}
