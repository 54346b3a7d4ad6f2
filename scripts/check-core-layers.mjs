#!/usr/bin/env node
// Checks that core/src imports one way: builds the graph of its modules from the paths the code names
// (`use crate::…`, `crate::…`, `super::…`, `self::…`, a child module's `child::…`; a `mod x;` declaration is
// no edge), prints every circle with the files and lines that make it, and the layer order it found.
// Exits 1 on a circle. Node >= 20, no dependencies: `node scripts/check-core-layers.mjs [core/src]`.
//
// Nodes: the top-level modules of core/src (a folder module is one node); then, inside every module that has
// child modules, its own file and each child (a grandchild counts as its child). Test code (`#[cfg(test)]`
// modules, which may use the whole crate) and lib.rs (declarations and the public re-exports) make no edges.
// A path through a `pub use` re-export leads to the module that defines the item.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'core', 'src'));

/** Source with comments blanked and string/char literal contents blanked (quotes kept), same length and lines. */
function blank(src) {
  const out = src.split('');
  const wipe = (from, to) => {
    for (let i = from; i < to; i++) if (out[i] !== '\n') out[i] = ' ';
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    const next = src[i + 1];
    if (c === '/' && next === '/') {
      const end = src.indexOf('\n', i);
      const stop = end < 0 ? src.length : end;
      wipe(i, stop);
      i = stop;
    } else if (c === '/' && next === '*') {
      let depth = 1;
      let j = i + 2;
      while (j < src.length && depth > 0) {
        if (src[j] === '/' && src[j + 1] === '*') {
          depth++;
          j += 2;
        } else if (src[j] === '*' && src[j + 1] === '/') {
          depth--;
          j += 2;
        } else j++;
      }
      wipe(i, j);
      i = j;
    } else if (
      (c === 'r' || (c === 'b' && next === 'r')) &&
      /^b?r#*"/.test(src.slice(i, i + 260)) &&
      !/\w/.test(src[i - 1] ?? '')
    ) {
      const m = /^b?r(#*)"/.exec(src.slice(i));
      const close = `"${m[1]}`;
      const start = i + m[0].length;
      const end = src.indexOf(close, start);
      const stop = end < 0 ? src.length : end;
      wipe(start, stop);
      i = stop + close.length;
    } else if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === '\\' ? 2 : 1;
      wipe(i + 1, j);
      i = j + 1;
    } else if (c === "'") {
      // A char literal ('x', '\n', '\u{..}'), else a lifetime or label.
      if (next === '\\') {
        const end = src.indexOf("'", i + 3);
        wipe(i + 1, end);
        i = end + 1;
      } else if (src[i + 2] === "'") {
        wipe(i + 1, i + 2);
        i += 3;
      } else if (next !== undefined && next.codePointAt(0) > 0xffff && src[i + 3] === "'") {
        wipe(i + 1, i + 3);
        i += 4;
      } else i++;
    } else i++;
  }
  return out.join('');
}

/** Expands a `use` tree (`a::b::{c, d::e as f, self}`) into [path segments, name] pairs. */
function useTree(text) {
  const tokens = text.match(/::|[{},*]|[A-Za-z_$][\w$]*/g) ?? [];
  let p = 0;
  const items = [];
  const tree = (prefix) => {
    const segs = [...prefix];
    for (;;) {
      const t = tokens[p];
      if (t === '{') {
        p++;
        while (p < tokens.length && tokens[p] !== '}') {
          tree(segs);
          if (tokens[p] === ',') p++;
        }
        p++;
        return;
      }
      if (t === undefined || t === ',' || t === '}') return;
      p++;
      if (tokens[p] === '::') {
        segs.push(t);
        p++;
        continue;
      }
      let name = t;
      if (name === 'self') name = segs.at(-1);
      else segs.push(name);
      if (tokens[p] === 'as') {
        name = tokens[p + 1];
        p += 2;
      }
      items.push([segs, name]);
      return;
    }
  };
  tree([]);
  return items;
}

const modules = new Map(); // module path "a::b" -> { path: [..], files: Set, children: Set, test, reexports: Map }
const files = new Map(); // file -> { mod: [...], code, raw, lines }

function moduleAt(path) {
  const key = path.join('::');
  if (!modules.has(key))
    modules.set(key, { path, files: new Set(), children: new Set(), test: false, reexports: new Map() });
  return modules.get(key);
}

function lineOf(f, offset) {
  let lo = 0;
  let hi = f.lines.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (f.lines[mid] <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Reads a file of module `path` and, following its `mod` declarations, the files of its children. */
function load(file, path, isModRs, test) {
  const raw = readFileSync(file, 'utf8');
  const code = blank(raw);
  const lines = [0];
  for (let i = 0; i < raw.length; i++) if (raw[i] === '\n') lines.push(i + 1);
  const f = { file, mod: path, code, raw, lines, scopes: [], test };
  files.set(file, f);
  const own = moduleAt(path);
  own.files.add(file);
  own.test ||= test;
  const dir = isModRs ? dirname(file) : join(dirname(file), file.replace(/^.*\//, '').replace(/\.rs$/, ''));
  // Inline modules: the byte ranges of `mod x { … }`, for the module path (and test flag) of each offset.
  const decl = /((?:#\[[^\]]*\]\s*)*)(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_]\w*)\s*([;{])/g;
  for (const m of code.matchAll(decl)) {
    const attrs = raw.slice(m.index, m.index + m[1].length);
    const isTest = /#\[cfg\((?:all\()?\s*test\b/.test(attrs);
    const outer = scopeAt(f, m.index);
    const childPath = [...outer.mod, m[2]];
    const child = moduleAt(childPath);
    moduleAt(outer.mod).children.add(m[2]);
    child.test ||= isTest || outer.test;
    if (m[3] === '{') {
      let depth = 0;
      let j = m.index + m[0].length - 1;
      for (; j < code.length; j++) {
        if (code[j] === '{') depth++;
        else if (code[j] === '}' && --depth === 0) break;
      }
      f.scopes.push({ from: m.index + m[0].length, to: j, mod: childPath, test: child.test });
      child.files.add(file);
      continue;
    }
    // A file named by a `path` attribute keeps its children beside it, as a mod.rs does.
    const named = [...attrs.matchAll(/path\s*=\s*"([^"]+)"/g)].map((p) => join(dirname(file), p[1]));
    if (named.length > 0) {
      for (const p of named) load(p, childPath, true, child.test);
      continue;
    }
    const flat = join(dir, `${m[2]}.rs`);
    if (existsSync(flat)) load(flat, childPath, false, child.test);
    else load(join(dir, m[2], 'mod.rs'), childPath, true, child.test);
  }
  f.scopes.sort((a, b) => a.from - b.from);
}

/** The module path and test flag of the code at `offset` (the innermost inline module around it). */
function scopeAt(f, offset) {
  let best = { mod: f.mod, test: f.test };
  for (const s of f.scopes) if (s.from <= offset && offset < s.to) best = s;
  return best;
}

load(join(root, 'lib.rs'), [], true, false);

const EXTERN =
  /^(std|core|alloc|rusqlite|serde|serde_json|usearch|foldhash|cxx|wasm_bindgen|wasm_bindgen_test|sqlite_wasm_rs|ts_rs|numkong)$/;

/** Where a path named in module `cur` leads: [module path, or null when it leaves the crate]. */
function target(cur, segs, bare) {
  let at;
  let i = 0;
  if (segs[0] === 'crate' || segs[0] === '$crate') {
    at = [];
    i = 1;
  } else if (segs[0] === 'self') {
    at = [...cur];
    i = 1;
  } else if (segs[0] === 'super') {
    at = [...cur];
    while (segs[i] === 'super') {
      at.pop();
      i++;
    }
  } else if (modules.get(cur.join('::'))?.children.has(segs[0])) at = [...cur];
  else if (bare || EXTERN.test(segs[0])) return null;
  else return null;
  for (let hops = 0; i < segs.length && hops < 20; hops++) {
    const m = modules.get(at.join('::'));
    const seg = segs[i];
    if (m.children.has(seg)) {
      at.push(seg);
      i++;
      continue;
    }
    const via = m.reexports.get(seg);
    if (via) {
      const t = target(at, [...via], false);
      if (t) return t;
    }
    break;
  }
  return at;
}

// Pass 1: every `use` (re-exports recorded per module); pass 2: resolve them and the inline paths.
const uses = [];
for (const f of files.values()) {
  const re = /((?:pub(?:\([^)]*\))?\s+)?)\buse\s+([^;]*);/g;
  for (const m of f.code.matchAll(re)) {
    const scope = scopeAt(f, m.index);
    for (const [segs, name] of useTree(m[2])) {
      uses.push({ f, offset: m.index, scope, segs });
      if (m[1].trim() && name !== '*') moduleAt(scope.mod).reexports.set(name, segs);
    }
  }
}

const edges = []; // { from: module path, file, line, to: module path, test }
for (const u of uses) {
  const to = target(u.scope.mod, u.segs, false);
  if (to)
    edges.push({
      from: u.scope.mod,
      file: u.f.file,
      line: lineOf(u.f, u.offset),
      to,
      test: u.scope.test,
      text: u.segs.join('::'),
    });
}
for (const f of files.values()) {
  const code = f.code.replace(/\buse\s+[^;]*;/g, (s) => s.replace(/[^\n]/g, ' '));
  const re = /(?<![\w:])(\$?crate|self|super|[a-z_]\w*)((?:::[A-Za-z_]\w*)+)/g;
  for (const m of code.matchAll(re)) {
    const scope = scopeAt(f, m.index);
    const segs = [m[1], ...m[2].slice(2).split('::')];
    const to = target(scope.mod, segs, !/^(\$?crate|self|super)$/.test(m[1]));
    if (to)
      edges.push({
        from: scope.mod,
        file: f.file,
        line: lineOf(f, m.index),
        to,
        test: scope.test,
        text: segs.join('::'),
      });
  }
}

const rel = (file) => relative(process.cwd(), file);

/** Strongly connected components with more than one node (Tarjan), each with its nodes sorted. */
function circles(nodes, adj) {
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of adj.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of nodes) if (!idx.has(v)) visit(v);
  return out;
}

/** Checks one graph: `nodeOf` maps a module path to its node (or null: not in this graph). */
function check(title, nodeOf, nodes) {
  const adj = new Map();
  const why = new Map();
  for (const e of edges) {
    if (e.test || e.file === join(root, 'lib.rs')) continue;
    const a = nodeOf(e.from);
    const b = nodeOf(e.to);
    if (a == null || b == null || a === b) continue;
    if (!adj.has(a)) adj.set(a, new Set());
    adj.get(a).add(b);
    const k = `${a}\u0000${b}`;
    if (!why.has(k)) why.set(k, []);
    why.get(k).push(`${rel(e.file)}:${e.line} ${e.text}`);
  }
  const found = circles(nodes, adj);
  for (const scc of found) {
    console.log(`circle in ${title}: ${scc.join(', ')}`);
    const inside = new Set(scc);
    for (const a of scc)
      for (const b of [...(adj.get(a) ?? [])].sort())
        if (inside.has(b)) {
          const w = why.get(`${a}\u0000${b}`);
          console.log(`  ${a} -> ${b}: ${w.slice(0, 4).join('; ')}${w.length > 4 ? `; … ${w.length - 4} more` : ''}`);
        }
  }
  return { found, adj };
}

const isTestModule = (path) => modules.get(path.join('::'))?.test;
const top = [...moduleAt([]).children].filter((c) => !isTestModule([c])).sort();
const { found, adj } = check('core/src', (p) => (p.length === 0 ? null : p[0]), top);
let failed = found.length > 0;
const inCircles = found.reduce((n, s) => n + s.length, 0);

// Inside each module with child modules: its own file(s) and each child.
let inner = 0;
for (const m of [...modules.values()].sort((a, b) => a.path.join('::').localeCompare(b.path.join('::')))) {
  if (m.path.length === 0 || m.test || m.children.size === 0) continue;
  const kids = [...m.children].filter((c) => !isTestModule([...m.path, c]));
  if (kids.length === 0) continue;
  const name = m.path.join('::');
  const nodeOf = (p) => {
    if (p.length < m.path.length || m.path.some((s, i) => p[i] !== s)) return null;
    return p.length === m.path.length ? `${name} (own file)` : `${name}::${p[m.path.length]}`;
  };
  const r = check(name, nodeOf, [`${name} (own file)`, ...kids.map((k) => `${name}::${k}`)]);
  inner += r.found.reduce((n, s) => n + s.length, 0);
  failed ||= r.found.length > 0;
}

// Layer order: a module's layer is one above the highest it uses (a circle counts as one module).
const comp = new Map(top.map((t) => [t, t]));
for (const scc of found) for (const t of scc) comp.set(t, scc.join('+'));
const level = new Map();
const levelOf = (c, seen = new Set()) => {
  if (level.has(c)) return level.get(c);
  if (seen.has(c)) return 0;
  seen.add(c);
  let l = 0;
  for (const t of top)
    if (comp.get(t) === c)
      for (const d of adj.get(t) ?? []) if (comp.get(d) !== c) l = Math.max(l, levelOf(comp.get(d), seen) + 1);
  level.set(c, l);
  return l;
};
const byLevel = [];
for (const c of new Set(comp.values())) {
  byLevel[levelOf(c)] ??= [];
  byLevel[levelOf(c)].push(c);
}
console.log('layer order (a module uses only modules of lower layers):');
byLevel.forEach((cs, l) => {
  console.log(`  ${l}: ${cs.sort().join(', ')}`);
});
console.log(
  `${top.length} top-level modules, ${found.length} circle(s) among them (${inCircles} modules in circles), ` +
    `${inner} modules in circles inside folder modules`,
);
process.exit(failed ? 1 : 0);
