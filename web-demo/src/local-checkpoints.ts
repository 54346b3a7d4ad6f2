/**
 * "Checkpoints of an agent thread": a scripted sample agent (sample-data.ts) that saves a LangGraph-shaped
 * checkpoint (its whole state, parent id, step metadata) after each step, listed newest first.
 */
import type { JsonObject } from 'edgemem';
import { busy, byId, errorText, h, say } from './dom.ts';
import type { LocalApp } from './local-app.ts';
import { SAMPLE_THREAD, SAMPLE_TURNS, type Turn } from './sample-data.ts';

const id = (step: number) => `step-${String(step).padStart(3, '0')}`;

export function mountCheckpoints(app: LocalApp): void {
  const stepButton = byId<HTMLButtonElement>('cp-step');
  const resetButton = byId<HTMLButtonElement>('cp-reset');
  const list = byId<HTMLOListElement>('cp-list');
  const status = byId('cp-status');

  async function draw(): Promise<number> {
    const cps = await app.client.call('listCheckpoints', { threadId: SAMPLE_THREAD, limit: 20 });
    list.replaceChildren(
      ...cps.map((cp) => {
        const messages = ((cp.data as JsonObject | null)?.messages ?? []) as unknown as Turn[];
        const last = messages.at(-1);
        return h(
          'li',
          {},
          h('span', { class: 'path' }, cp.checkpointId),
          ' ',
          h('span', { class: 'meta' }, `parent ${cp.parentId ?? '—'} · seq ${cp.seq} · ${messages.length} messages`),
          ' ',
          last ? h('span', {}, `${last.role}: ${last.content}`) : null,
        );
      }),
    );
    const step = cps.length ? Number((cps[0]?.metadata as { step?: number } | undefined)?.step ?? 0) : 0;
    stepButton.disabled = step >= SAMPLE_TURNS.length;
    stepButton.textContent =
      step >= SAMPLE_TURNS.length ? 'Thread finished' : `Run agent step ${step + 1} of ${SAMPLE_TURNS.length}`;
    return step;
  }

  stepButton.addEventListener('click', () => {
    void busy(stepButton, async () => {
      try {
        const latest = await app.client.call('getCheckpoint', SAMPLE_THREAD);
        const step = Number((latest?.metadata as { step?: number } | undefined)?.step ?? 0);
        const turns = SAMPLE_TURNS.slice(0, step + 1);
        const seq = await app.client.call('putCheckpoint', {
          threadId: SAMPLE_THREAD,
          checkpointId: id(step + 1),
          parentId: latest ? latest.checkpointId : null,
          data: { messages: turns as unknown as JsonObject[] },
          metadata: { step: step + 1, source: 'loop' },
        });
        say(status, `Saved checkpoint ${id(step + 1)} at seq ${seq}.`, 'ok');
        await app.changed();
      } catch (e) {
        say(status, `No checkpoint — ${errorText(e)}`, 'error');
      }
    }).then(draw); // busy re-enabled the button; draw disables it again when the thread is finished
  });

  resetButton.addEventListener('click', () => {
    void busy(resetButton, async () => {
      try {
        const n = await app.client.call('deleteThread', SAMPLE_THREAD);
        say(status, `Deleted the thread's ${n} checkpoints.`, 'ok');
        await app.changed();
      } catch (e) {
        say(status, `Not deleted — ${errorText(e)}`, 'error');
      }
    });
  });

  app.onChange(async () => void (await draw()));
}
