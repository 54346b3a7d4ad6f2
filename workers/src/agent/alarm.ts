/**
 * The agent's maintenance alarm: armed by writes; sweeps expired memories, applies history/event retention,
 * flushes buffered vectors into the index and snapshots it, and — for an agent whose `consolidate` setting is on —
 * consolidates a bounded page of its memories. It re-arms while writes keep coming, for the next expiry, soon while
 * a consolidation pass has memories left, and hourly while age-based retention has something to prune (`run`).
 */
import { type LocalMemoryStore, RETENTION_DEFAULTS } from 'edgemem';
import { mergedSettings, readAgentSettings } from '../agent-settings.js';
import type { Env } from '../env.js';
import { LIMITS } from '../limits.js';
import { alarmDelayMs } from '../store-settings.js';
import type { AgentStore } from './open.js';

/** How often an idle agent with age-limited events or history is woken to apply the limit. */
const IDLE_RETENTION_MS = 3600 * 1000;
/** How soon the alarm runs again while a consolidation pass has memories left (at most; the usual delay if shorter). */
const CONSOLIDATE_STEP_MS = 1000;

/**
 * Where the alarm keeps its consolidation pass (the object's KV): the cursor of the next page (null: no pass under
 * way), the seq the pass started at, how many seqs its own decisions took, and the seq up to which a finished pass
 * covered every write.
 */
const CONSOLIDATION_KEY = 'consolidate:v1';
interface Consolidation {
  cursor: string | null;
  start: number;
  own: number;
  done: number;
}

export class Maintenance {
  readonly #ctx: DurableObjectState;
  readonly #env: Env;
  readonly #store: AgentStore;
  /** When the pending alarm is due, as far as this instance knows (null: not known, or none). */
  #due: number | null = null;
  #writesSinceAlarm = 0;

  constructor(ctx: DurableObjectState, env: Env, store: AgentStore) {
    this.#ctx = ctx;
    this.#env = env;
    this.#store = store;
  }

  /** Arms the alarm after a write (see `arm`). */
  async wrote(): Promise<void> {
    this.#writesSinceAlarm++;
    await this.arm();
  }

  /**
   * Makes the alarm due within the usual delay from now: after a write, or a setting that needs it. One pending
   * sooner stays; one pending later (an idle agent's hourly retention check) is brought forward, so a write is
   * maintained — and consolidated — within the delay however long the agent was idle.
   */
  async arm(): Promise<void> {
    const due = Date.now() + alarmDelayMs(this.#env);
    if (this.#due !== null && this.#due <= due) return;
    const pending = await this.#ctx.storage.getAlarm();
    if (pending !== null && pending <= due) {
      this.#due = pending;
      return;
    }
    await this.#ctx.storage.setAlarm(due);
    this.#due = due;
  }

  /**
   * The alarm: sweep, retention, index flush + snapshot. Then re-arms for the earliest of: the usual delay while
   * writes keep coming (or something expired), the next memory's expiry (so its `expire` event is pushed without
   * waiting for a write), and, while the store keeps events or history under an age limit, an idle check at most
   * hourly (so age-based retention reaches idle agents too).
   */
  async run(): Promise<void> {
    this.#due = null;
    const writes = this.#writesSinceAlarm;
    this.#writesSinceAlarm = 0;
    const store = await this.#store.open();
    const expired = await store.sweep();
    await store.maintain();
    const own = readAgentSettings(this.#ctx.storage);
    const consolidated = own?.consolidate ? await this.#consolidate(store) : { decided: 0, more: false };
    const now = Date.now();
    const delay = alarmDelayMs(this.#env);
    const stats = await store.stats();
    const when: number[] = [];
    // Consolidation's own writes buffer index work too: the next run flushes it.
    if (writes > 0 || expired > 0 || consolidated.decided > 0) when.push(now + delay);
    if (consolidated.more) when.push(now + Math.min(delay, CONSOLIDATE_STEP_MS));
    if (stats.nextExpiryAt !== null) when.push(Math.max(stats.nextExpiryAt + 1, now + 1_000));
    const { retention } = mergedSettings(this.#env, own);
    const ageLimited =
      (retention?.eventsMaxAgeMs ?? RETENTION_DEFAULTS.eventsMaxAgeMs) > 0 ||
      (retention?.historyMaxAgeMs ?? RETENTION_DEFAULTS.historyMaxAgeMs) > 0;
    if (ageLimited && (stats.events > 0 || stats.versions > stats.memories))
      when.push(now + Math.max(delay, IDLE_RETENTION_MS));
    if (when.length) {
      this.#due = Math.min(...when);
      await this.#ctx.storage.setAlarm(this.#due);
    }
  }

  /**
   * One page of the agent's consolidation pass (`consolidate` over the whole agent, the store's `coherence`
   * settings): at most LIMITS.consolidatePerAlarm memories, from where the last run stopped. A pass starts when
   * something was written since the last one finished; one during which others wrote (seqs its own decisions do not
   * account for) leaves them to the next pass, since they may lie behind its cursor. `more`: the pass goes on. A
   * page that fails (CONFLICT while an import is in progress, say) is tried again at the next run; one whose cursor
   * the store refuses starts the pass over. Maintenance goes on either way.
   */
  async #consolidate(store: LocalMemoryStore): Promise<{ decided: number; more: boolean }> {
    const kv = this.#ctx.storage.kv;
    const saved = kv.get<string>(CONSOLIDATION_KEY);
    const idle: Consolidation = { cursor: null, start: 0, own: 0, done: 0 };
    let pass = typeof saved === 'string' ? (JSON.parse(saved) as Consolidation) : idle;
    const before = await store.seq();
    // A store whose seq went back (emptied and filled again) starts over.
    if (before < pass.start || before < pass.done) pass = idle;
    if (pass.cursor === null) {
      if (before <= pass.done) return { decided: 0, more: false };
      pass = { cursor: null, start: before, own: 0, done: pass.done };
    }
    let report: Awaited<ReturnType<LocalMemoryStore['consolidate']>>;
    try {
      report = await store.consolidate({
        namespace: [],
        ...(pass.cursor === null ? {} : { cursor: pass.cursor }),
        limit: LIMITS.consolidatePerAlarm,
      });
    } catch (e) {
      const code = (e as { code?: unknown } | null)?.code;
      console.warn(`consolidation page failed (${String(code)}): ${e instanceof Error ? e.message : String(e)}`);
      if (code === 'INVALID_ARGUMENT') kv.put(CONSOLIDATION_KEY, JSON.stringify({ ...idle, done: pass.done }));
      return { decided: 0, more: false };
    }
    // The seqs this page's decisions took (each rewrite one; nothing else runs inside the call).
    const after = await store.seq();
    pass = { ...pass, cursor: report.nextCursor, own: pass.own + (after - before) };
    if (pass.cursor === null) pass = { ...pass, done: after === pass.start + pass.own ? after : pass.start };
    kv.put(CONSOLIDATION_KEY, JSON.stringify(pass));
    return { decided: report.decisions.length, more: pass.cursor !== null };
  }
}
