/**
 * LangGraph's field path syntax for what a store indexes (`index.fields`, `put(..., index)`): `a.b`,
 * `list[0]`, `list[-1]`, `list[*].text`, `*`, `{title,body.text}`, and `$` for the whole value. Follows
 * `tokenizePath` / `getTextAtPath` of `@langchain/langgraph-checkpoint`'s store utilities, which the
 * package does not export.
 */

/** A path as tokens: `"chapters[*].content"` -> `["chapters", "[*]", "content"]`. */
export function tokenizePath(path: string): string[] {
  const tokens: string[] = [];
  let current = '';
  let i = 0;
  const flush = () => {
    if (current) tokens.push(current);
    current = '';
  };
  while (i < path.length) {
    const ch = path.charAt(i);
    if (ch === '[' || ch === '{') {
      flush();
      const close = ch === '[' ? ']' : '}';
      let depth = 1;
      let token = ch;
      i += 1;
      while (i < path.length && depth > 0) {
        if (path[i] === ch) depth += 1;
        else if (path[i] === close) depth -= 1;
        token += path[i];
        i += 1;
      }
      tokens.push(token);
      continue;
    }
    if (ch === '.') flush();
    else current += ch;
    i += 1;
  }
  flush();
  return tokens;
}

function asText(v: unknown): string[] {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return [String(v)];
  if (v === null || v === undefined) return [];
  if (typeof v === 'object') return [JSON.stringify(v, null, 2)];
  return [];
}

function extract(obj: unknown, tokens: string[], pos: number): string[] {
  const token = tokens[pos];
  if (token === undefined) return asText(obj);
  const out: string[] = [];
  if (token.startsWith('[') && token.endsWith(']')) {
    if (!Array.isArray(obj)) return [];
    const index = token.slice(1, -1);
    if (index === '*') {
      for (const item of obj) out.push(...extract(item, tokens, pos + 1));
    } else {
      let idx = Number.parseInt(index, 10);
      if (idx < 0) idx += obj.length;
      if (idx >= 0 && idx < obj.length) out.push(...extract(obj[idx], tokens, pos + 1));
    }
  } else if (token.startsWith('{') && token.endsWith('}')) {
    if (typeof obj !== 'object' || obj === null) return [];
    for (const field of token
      .slice(1, -1)
      .split(',')
      .map((f) => f.trim())) {
      let current: unknown = obj;
      for (const part of tokenizePath(field)) {
        current =
          current !== null && typeof current === 'object' && part in current
            ? (current as Record<string, unknown>)[part]
            : undefined;
        if (current === undefined) break;
      }
      if (current !== undefined && typeof current !== 'function') out.push(...asText(current));
    }
  } else if (token === '*') {
    const items = Array.isArray(obj) ? obj : typeof obj === 'object' && obj !== null ? Object.values(obj) : [];
    for (const item of items) out.push(...extract(item, tokens, pos + 1));
  } else if (typeof obj === 'object' && obj !== null && token in obj) {
    out.push(...extract((obj as Record<string, unknown>)[token], tokens, pos + 1));
  }
  return out;
}

/** The texts at `path` in `value` (strings as they are, numbers and booleans as text, objects as JSON). */
export function textsAtPath(value: unknown, path: string): string[] {
  if (!path || path === '$') return [JSON.stringify(value, null, 2)];
  return extract(value, tokenizePath(path), 0);
}
