/**
 * The agent's maintenance alarm: armed by writes; sweeps expired memories, applies history/event retention,
 * flushes buffered vectors into the index and snapshots it. It re-arms while writes keep coming, for the next
 * expiry, and hourly while age-based retention has something to prune (`run`).
 */
import { RETENTION_DEFAULTS } from 'edgemem';
import { mergedSettings, readAgentSettings } from '../agent-settings.js';
import type { Env } from '../env.js';
import { alarmDelayMs } from '../store-settings.js';
import type { AgentStore } from './open.js';

/** How often an idle agent with age-limited events or history is woken to apply the limit. */
const IDLE_RETENTION_MS = 3600 * 1000;

export class Maintenance {
  readonly #ctx: DurableObjectState;
  readonly #env: Env;
  readonly #store: AgentStore;
  #armed = false;
  #writesSinceAlarm = 0;

  constructor(ctx: DurableObjectState, env: Env, store: AgentStore) {
    this.#ctx = ctx;
    this.#env = env;
    this.#store = store;
  }

  /** Arms the alarm after a write, unless one is pending. */
  async wrote(): Promise<void> {
    this.#writesSinceAlarm++;
    if (this.#armed) return;
    this.#armed = true;
    if ((await this.#ctx.storage.getAlarm()) === null) {
      await this.#ctx.storage.setAlarm(Date.now() + alarmDelayMs(this.#env));
    }
  }

  /**
   * The alarm: sweep, retention, index flush + snapshot. Then re-arms for the earliest of: the usual delay while
   * writes keep coming (or something expired), the next memory's expiry (so its `expire` event is pushed without
   * waiting for a write), and, while the store keeps events or history under an age limit, an idle check at most
   * hourly (so age-based retention reaches idle agents too).
   */
  async run(): Promise<void> {
    this.#armed = false;
    const writes = this.#writesSinceAlarm;
    this.#writesSinceAlarm = 0;
    const store = await this.#store.open();
    const expired = await store.sweep();
    await store.maintain();
    const now = Date.now();
    const delay = alarmDelayMs(this.#env);
    const stats = await store.stats();
    const when: number[] = [];
    if (writes > 0 || expired > 0) when.push(now + delay);
    if (stats.nextExpiryAt !== null) when.push(Math.max(stats.nextExpiryAt + 1, now + 1_000));
    const { retention } = mergedSettings(this.#env, readAgentSettings(this.#ctx.storage));
    const ageLimited =
      (retention?.eventsMaxAgeMs ?? RETENTION_DEFAULTS.eventsMaxAgeMs) > 0 ||
      (retention?.historyMaxAgeMs ?? RETENTION_DEFAULTS.historyMaxAgeMs) > 0;
    if (ageLimited && (stats.events > 0 || stats.versions > stats.memories))
      when.push(now + Math.max(delay, IDLE_RETENTION_MS));
    if (when.length) {
      this.#armed = true;
      await this.#ctx.storage.setAlarm(Math.min(...when));
    }
  }
}
