/**
 * "Memories, as of any seq": the store's memories in a table, and a slider over every seq from 0 to the
 * latest. Moving it lists the store exactly as it was right after that change (`list({ asOf: { seq } })`);
 * at the latest seq each row can be deleted, and any row shows its retained versions (`history`).
 */
import type { Memory } from 'edgemem';
import { byId, errorText, h, preview, say } from './dom.ts';
import type { LocalApp } from './local-app.ts';

const PAGE = 200;

const count = (n: number) => `${n} ${n === 1 ? 'memory' : 'memories'}`;

function when(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toLocaleTimeString();
}

export function mountHistory(app: LocalApp): void {
  const slider = byId<HTMLInputElement>('asof');
  const label = byId<HTMLOutputElement>('asof-label');
  const latest = byId<HTMLButtonElement>('asof-latest');
  const body = byId<HTMLTableSectionElement>('memories-body');
  const status = byId('memories-status');
  const versions = byId('versions');
  /** Whether the slider follows new writes (it does until moved back). */
  let following = true;
  let drawn = -1;
  let drawing: Promise<void> = Promise.resolve();

  async function draw(): Promise<void> {
    const head = app.stats?.seq ?? 0;
    // History before the floor was pruned by retention: the slider starts there.
    slider.min = String(Math.min(app.stats?.historyFloor ?? 0, head));
    slider.max = String(head);
    if (following) slider.value = String(head);
    const seq = Number(slider.value);
    const atHead = seq === head;
    label.value = atHead ? `seq ${seq} (now)` : `seq ${seq} of ${head}`;
    slider.setAttribute('aria-valuetext', label.value);
    try {
      const page = await app.client.call('list', { asOf: { seq }, limit: PAGE });
      body.replaceChildren(...page.items.map((m) => row(m, atHead)));
      drawn = seq;
      const more = page.nextCursor ? ` (first ${PAGE})` : '';
      say(
        status,
        atHead
          ? `${count(page.items.length)} now${more}.`
          : `The store as it was right after seq ${seq}: ${count(page.items.length)}${more}.`,
      );
    } catch (e) {
      say(status, `Cannot read as of seq ${seq} — ${errorText(e)}`, 'error');
    }
  }

  function row(m: Memory, atHead: boolean): HTMLTableRowElement {
    const path = `${m.namespace.join('/')}/${m.key}`;
    const show = h(
      'button',
      { type: 'button', class: 'small secondary', 'aria-label': `Versions of ${path}` },
      'Versions',
    );
    show.addEventListener('click', () => void showVersions(m));
    const del =
      atHead && h('button', { type: 'button', class: 'small danger', 'aria-label': `Delete ${path}` }, 'Delete');
    if (del) del.addEventListener('click', () => void remove(m));
    const flags = [m.pinned ? 'pinned' : '', m.expiresAt !== null ? `expires ${when(m.expiresAt)}` : '']
      .filter(Boolean)
      .join(', ');
    return h(
      'tr',
      { 'data-key': m.key },
      h('th', { scope: 'row', class: 'path' }, path),
      h('td', { class: 'value' }, preview(m.value)),
      h('td', {}, `v${m.version} · seq ${m.seq}`),
      h('td', {}, flags),
      h('td', { class: 'actions' }, show, del),
    );
  }

  async function remove(m: Memory): Promise<void> {
    try {
      const seq = await app.client.call('delete', m.namespace, m.key);
      say(
        status,
        `Deleted ${m.namespace.join('/')}/${m.key} at seq ${seq}; move the slider back to see it again.`,
        'ok',
      );
      await app.changed();
    } catch (e) {
      say(status, `Not deleted — ${errorText(e)}`, 'error');
    }
  }

  async function showVersions(m: Memory): Promise<void> {
    try {
      const list = await app.client.call('history', m.namespace, m.key);
      versions.replaceChildren(
        h('h4', {}, `Versions of ${m.namespace.join('/')}/${m.key}`),
        h(
          'ol',
          {},
          ...list.map((v) => h('li', {}, `v${v.version} at seq ${v.seq} (${when(v.updatedAt)}): `, preview(v.value))),
        ),
      );
      versions.hidden = false;
    } catch (e) {
      say(status, `No versions — ${errorText(e)}`, 'error');
    }
  }

  /** Redraws once per burst of slider moves (the list call is fast, but a drag fires many events). */
  function schedule(): void {
    drawing = drawing.then(() => (Number(slider.value) !== drawn || following ? draw() : undefined));
  }

  slider.addEventListener('input', () => {
    following = Number(slider.value) === Number(slider.max);
    schedule();
  });
  latest.addEventListener('click', () => {
    following = true;
    schedule();
  });
  app.onChange(() => {
    versions.hidden = true;
    return draw();
  });
}
