/** "Add a memory": the form (namespace, key, text, metadata, TTL, pinned) and the sample memories button. */
import type { JsonObject, MemoryInput, WriteAck } from 'edgemem';
import { busy, byId, errorText, parseNamespace, say } from './dom.ts';
import type { LocalApp } from './local-app.ts';
import { SAMPLE_MEMORIES } from './sample-data.ts';

function evictedNote(acks: WriteAck[]): string {
  const evicted = acks.flatMap((a) => a.evicted.map((e) => `${e.namespace.join('/')}/${e.key}`));
  return evicted.length
    ? ` The cap evicted ${evicted.length}: ${evicted.slice(0, 5).join(', ')}${evicted.length > 5 ? '…' : ''}.`
    : '';
}

function parseMetadata(s: string): JsonObject {
  if (!s.trim()) return {};
  const m = JSON.parse(s) as unknown;
  if (typeof m !== 'object' || m === null || Array.isArray(m))
    throw new Error('metadata must be a JSON object, e.g. {"topic": "food"}');
  return m as JsonObject;
}

export function mountAdd(app: LocalApp): void {
  const form = byId<HTMLFormElement>('add-form');
  const status = byId('add-status');
  const samples = byId<HTMLButtonElement>('add-samples');

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const text = String(data.get('text') ?? '').trim();
    const ttl = Number(data.get('ttl') || 0);
    void busy(form.querySelector('button[type=submit]'), async () => {
      try {
        const memory: MemoryInput = {
          namespace: parseNamespace(String(data.get('namespace') ?? '')),
          key: String(data.get('key') ?? '').trim(),
          value: text,
          text,
          metadata: parseMetadata(String(data.get('metadata') ?? '')),
          pinned: data.get('pinned') === 'on',
          ...(ttl > 0 ? { ttlMs: Math.round(ttl * 1000) } : {}),
        };
        const ack = await app.client.call('put', memory); // the store embeds the text (when vectors are on)
        const embedded = app.vectors().on && text !== '';
        say(
          status,
          `Saved ${memory.namespace.join('/')}/${memory.key} as version ${ack.version} at seq ${ack.seq}${embedded ? ' with its embedding' : ''}.${evictedNote([ack])}`,
          'ok',
        );
        await app.changed();
      } catch (e) {
        say(status, `Not saved — ${errorText(e)}`, 'error');
      }
    });
  });

  samples.addEventListener('click', () => {
    void busy(samples, async () => {
      try {
        const acks: WriteAck[] = [];
        for (const m of SAMPLE_MEMORIES) acks.push(await app.client.call('put', { ...m, text: String(m.value) }));
        say(
          status,
          `Added ${acks.length} sample memories (seq ${acks[0]?.seq}–${acks.at(-1)?.seq}).${evictedNote(acks)}`,
          'ok',
        );
        await app.changed();
      } catch (e) {
        say(status, `Samples not added — ${errorText(e)}`, 'error');
      }
    });
  });
}
