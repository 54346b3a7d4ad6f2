/** The demo's sample data: a few memories an assistant might keep, and the scripted turns of a sample agent thread. */
import type { MemoryInput } from 'edgemem';

export const SAMPLE_MEMORIES: Omit<MemoryInput, 'embedding'>[] = [
  {
    namespace: ['user', '42', 'prefs'],
    key: 'coffee',
    value: 'Prefers oat milk flat whites, no sugar',
    metadata: { topic: 'food' },
  },
  {
    namespace: ['user', '42', 'prefs'],
    key: 'seat',
    value: 'Likes a window seat on flights longer than two hours',
    metadata: { topic: 'travel' },
  },
  {
    namespace: ['user', '42', 'facts'],
    key: 'city',
    value: 'Lives in Lisbon, near the river in Alfama',
    metadata: { topic: 'home' },
    pinned: true,
  },
  {
    namespace: ['user', '42', 'facts'],
    key: 'allergy',
    value: 'Allergic to peanuts — check every restaurant menu',
    metadata: { topic: 'health' },
    pinned: true,
  },
  {
    namespace: ['user', '42', 'work'],
    key: 'standup',
    value: 'Team stand-up is at 9:30 Lisbon time on weekdays',
    metadata: { topic: 'work' },
  },
  {
    namespace: ['user', '42', 'work'],
    key: 'project',
    value: 'Working on the billing migration, due end of March',
    metadata: { topic: 'work' },
  },
  {
    namespace: ['session'],
    key: 'scratch',
    value: 'Asked about train times to Porto this afternoon',
    metadata: { topic: 'travel' },
    ttlMs: 10 * 60_000,
  },
  {
    namespace: ['user', '42', 'prefs'],
    key: 'music',
    value: 'Listens to fado and jazz while working',
    metadata: { topic: 'leisure' },
  },
];

/** One turn of the sample agent's conversation: what the thread's state gains at that step. */
export interface Turn {
  role: 'user' | 'assistant' | 'tool';
  content: string;
}

export const SAMPLE_THREAD = 'trip-planner';

export const SAMPLE_TURNS: Turn[] = [
  { role: 'user', content: 'Plan a weekend in Porto for me.' },
  { role: 'assistant', content: 'Looking up your preferences: window seat, peanut allergy, oat milk.' },
  { role: 'tool', content: 'trains(Lisbon→Porto, Sat): 08:09, 09:09, 11:09' },
  { role: 'assistant', content: 'Booked the 09:09 Alfa Pendular, window seat 42.' },
  { role: 'tool', content: 'restaurants(Porto, peanut-free): Cantinho do Avillez, Tapabento' },
  { role: 'assistant', content: 'Dinner on Saturday at Tapabento, 20:00. Enjoy Porto!' },
];
