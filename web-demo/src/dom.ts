/** Small DOM helpers: typed lookups, element building with text only (never HTML strings), status lines. */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return el as T;
}

type Child = Node | string | null | undefined | false;

/** `h('li', { class: 'x' }, 'text', child)`: attributes are set as attributes, children appended as text or nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false) continue;
    el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** Shows `text` in a status line (`role="status"` in the page), styled as ok / error / plain. */
export function say(el: HTMLElement, text: string, kind: 'ok' | 'error' | 'info' = 'info'): void {
  el.textContent = text;
  el.dataset.kind = kind;
}

export function errorText(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  const code = typeof err?.code === 'string' ? `${err.code}: ` : '';
  return code + String(err?.message ?? e);
}

/** `user/42` → `['user', '42']` (empty segments dropped). */
export function parseNamespace(s: string): string[] {
  return s
    .split('/')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** A JSON value for display, shortened. */
export function preview(value: unknown, max = 120): string {
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Runs `fn` with the button disabled, so a double click cannot send twice. */
export async function busy<T>(button: HTMLButtonElement | null, fn: () => Promise<T>): Promise<T> {
  if (button) button.disabled = true;
  try {
    return await fn();
  } finally {
    if (button) button.disabled = false;
  }
}
