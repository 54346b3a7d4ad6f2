/**
 * Where an OPFS replica lives, and how a reload past the agent's retention replaces it without a moment of reads
 * waiting: the store `name` is kept in the OPFS store `name` or `name~<n>`, the one a small pointer file
 * (`edgemem/<name>.current`) names. A reload fills a new generation beside the current one, then writes the pointer —
 * one atomic replacement of a file — and removes the old generation; a generation no pointer names (a reload a
 * closed tab or a crash cut short) is removed at the next open.
 */

import type { StoreSettings } from '../api/types.js';
import type { LocalStore } from '../local/local-store.js';
import type { ReplicaStorage } from './open-replica.js';
import type { OpenLocal } from './storage.js';

/** The OPFS directory that holds one sub-directory per store (pages/opfs-page-store.ts). */
const ROOT = 'edgemem';

async function root(): Promise<FileSystemDirectoryHandle> {
  return (await navigator.storage.getDirectory()).getDirectoryHandle(ROOT, { create: true });
}

/** The generation the pointer names (none: `name` itself). */
async function current(name: string): Promise<string> {
  try {
    const file = await (await (await root()).getFileHandle(`${name}.current`)).getFile();
    const text = (await file.text()).trim();
    return text.startsWith(`${name}~`) ? text : name;
  } catch {
    return name;
  }
}

async function point(name: string, to: string): Promise<void> {
  const handle = await (await root()).getFileHandle(`${name}.current`, { create: true });
  const w = await handle.createWritable(); // written to a swap file, which replaces the pointer on close
  await w.write(to);
  await w.close();
}

/** Removes the generations of `name` other than `keep` (a store's directory and everything in it). */
async function removeOthers(name: string, keep: string): Promise<void> {
  const dir = await root();
  const stale: string[] = [];
  for await (const [entry, handle] of dir as unknown as AsyncIterable<[string, FileSystemHandle]>) {
    if (handle.kind !== 'directory' || entry === keep) continue;
    if (entry === name || entry.startsWith(`${name}~`)) stale.push(entry);
  }
  for (const entry of stale) await dir.removeEntry(entry, { recursive: true }).catch(() => undefined);
}

/** The OPFS replica `name`: its current generation, and a reload into the next one. */
export function opfsReplicaStorage(name: string, open: OpenLocal): ReplicaStorage {
  let next: string | undefined;
  return {
    open: async (settings: StoreSettings) => {
      const at = await current(name);
      await removeOthers(name, at);
      return open({ opfs: at }, settings);
    },
    scratch: async (settings: StoreSettings) => {
      const at = await current(name);
      next = `${name}~${Date.now().toString(36)}`;
      await removeOthers(name, at);
      return open({ opfs: next }, settings);
    },
    adopt: async (fresh: LocalStore, settings: StoreSettings) => {
      const to = next as string;
      await fresh.close();
      await point(name, to);
      await removeOthers(name, to);
      return open({ opfs: to }, settings);
    },
  };
}
