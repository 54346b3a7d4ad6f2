/** The live feed list: one line per change event (newest first, at most 200), and notes on the connection. */
import type { ChangeEvent } from 'edgemem';
import { h, preview } from './dom.ts';

const MAX = 200;

function describe(e: ChangeEvent): string {
  const path = e.namespace ? `${e.namespace.join('/')}/${e.key}` : (e.key ?? '');
  switch (e.kind) {
    case 'put':
      return `${path} v${e.version}`;
    case 'delete':
      return path;
    case 'expire':
      return `${path} (its TTL passed)`;
    case 'evict':
      return `${path} (evicted by the cap)`;
    case 'supersede':
      return `${path} v${e.version} (superseded by ${(e.payload as { by?: string } | undefined)?.by ?? 'a newer fact'})`;
    case 'checkpoint':
      return `thread ${e.channel}, checkpoint ${e.key}`;
    case 'notify':
      return `#${e.channel}: ${preview(e.payload ?? null, 200)}`;
  }
}

export class FeedView {
  readonly #list: HTMLOListElement;

  constructor(list: HTMLOListElement) {
    this.#list = list;
  }

  event(e: ChangeEvent): void {
    this.#add(
      h(
        'li',
        { class: `event kind-${e.kind}`, 'data-seq': String(e.seq), 'data-kind': e.kind },
        h('span', { class: 'seq' }, `seq ${e.seq}`),
        ' ',
        h('span', { class: 'badge' }, e.kind),
        ' ',
        h('span', { class: 'what' }, describe(e)),
        ' ',
        h('time', { datetime: new Date(e.ts).toISOString() }, new Date(e.ts).toLocaleTimeString()),
      ),
    );
  }

  note(text: string): void {
    this.#add(h('li', { class: 'note' }, text));
  }

  clear(): void {
    this.#list.replaceChildren();
  }

  #add(li: HTMLLIElement): void {
    this.#list.prepend(li);
    while (this.#list.children.length > MAX) this.#list.lastElementChild?.remove();
  }
}
