// @ts-check
/**
 * The HTTP reference pages, rendered from the OpenAPI document the Worker itself serves: bundles the Worker
 * (`wrangler deploy --dry-run`, offline), serves it from Miniflare, fetches `/v1/openapi.json`, and writes
 * docs/reference/http/ (one page per resource, and the document as `openapi.json`). Nothing here is hand-copied:
 * change a route's schema in workers/src and the pages follow. Run by scripts/docs-reference.
 *
 *   node docs/tools/http-reference.mjs [--out DIR]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorker, startWorker } from 'edgemem-worker/harness/miniflare';

const docsDir = fileURLToPath(new URL('..', import.meta.url));
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 ? process.argv[outArg + 1] : join(docsDir, 'reference', 'http');

/** Fetches the OpenAPI document from the real Worker bundle under Miniflare. */
async function servedDocument() {
  const work = mkdtempSync(join(tmpdir(), 'edgemem-docs-openapi-'));
  try {
    bundleWorker(join(work, 'bundle'), join(work, 'wrangler-config'));
    const { mf, url } = await startWorker({ bundle: join(work, 'bundle'), bindings: { ADMIN_TOKEN: 'docs-build' } });
    try {
      const res = await fetch(`${url}/v1/openapi.json`);
      if (!res.ok) throw new Error(`GET /v1/openapi.json: HTTP ${res.status}`);
      return await res.json();
    } finally {
      await mf.dispose();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Which page a path belongs to: the segment after the agent, or the first one after /v1. */
function resourceOf(/** @type {string} */ path) {
  const parts = path.split('/').filter(Boolean);
  if (parts[1] !== 'agents') return parts[1] ?? 'root';
  return parts[3] ?? 'agents';
}

const PAGES = [
  { slug: 'agents', title: 'Health, tokens and agents', resources: ['health', 'tokens', 'agents'] },
  { slug: 'memories', title: 'Memories and namespaces', resources: ['memories', 'namespaces'] },
  { slug: 'search', title: 'Search', resources: ['search'] },
  { slug: 'coherence', title: 'Remember, consolidate and context', resources: ['remember', 'consolidate', 'context'] },
  { slug: 'checkpoints', title: 'Checkpoints', resources: ['checkpoints'] },
  { slug: 'feed', title: 'Change feed and WebSocket', resources: ['events', 'notify', 'ws'] },
  { slug: 'replica', title: 'Replicas', resources: ['replica'] },
  {
    slug: 'admin',
    title: 'Stats, maintenance, export and import',
    resources: ['stats', 'sweep', 'maintain', 'export', 'import'],
  },
  { slug: 'mcp', title: 'MCP endpoint', resources: ['mcp'] },
];

const escapeCell = (/** @type {unknown} */ s) =>
  String(s ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ')
    .replace(/</g, '&lt;');
const refName = (/** @type {string} */ ref) => ref.split('/').pop() ?? ref;
const schemaLink = (/** @type {string} */ name) => `[${name}](./schemas#${name.toLowerCase()})`;

/** A one-line type for a JSON schema, linking named component schemas. */
function typeOf(/** @type {any} */ s) {
  if (!s || typeof s !== 'object') return 'any';
  if (s.$ref) return schemaLink(refName(s.$ref));
  if (s.anyOf || s.oneOf) return (s.anyOf ?? s.oneOf).map(typeOf).join(' \\| ');
  if (s.allOf) return s.allOf.map(typeOf).join(' & ');
  if (s.enum) return s.enum.map((/** @type {unknown} */ v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  const t = Array.isArray(s.type) ? s.type.join(' \\| ') : s.type;
  if (t === 'array') {
    const item = typeOf(s.items);
    return item.includes(' \\| ') ? `(${item})[]` : `${item}[]`;
  }
  if (t === 'object' && s.properties) return `{ ${Object.keys(s.properties).join(', ')} }`;
  if (t === 'object') return 'object';
  return t ?? 'any';
}

/** Constraints worth showing next to a type: bounds, lengths, patterns, defaults. */
function constraints(/** @type {any} */ s) {
  if (!s || typeof s !== 'object' || s.$ref) return '';
  const c = [];
  for (const [k, label] of [
    ['minimum', '≥'],
    ['exclusiveMinimum', '>'],
    ['maximum', '≤'],
    ['exclusiveMaximum', '<'],
  ]) {
    if (typeof s[k] === 'number') c.push(`${label} ${s[k]}`);
  }
  if (typeof s.minLength === 'number' && s.minLength > 0) c.push(`length ≥ ${s.minLength}`);
  if (typeof s.maxLength === 'number') c.push(`length ≤ ${s.maxLength}`);
  if (typeof s.minItems === 'number' && s.minItems > 0) c.push(`items ≥ ${s.minItems}`);
  if (typeof s.maxItems === 'number') c.push(`items ≤ ${s.maxItems}`);
  if (s.pattern) c.push(`pattern \`${s.pattern}\``);
  if (s.default !== undefined) c.push(`default \`${JSON.stringify(s.default)}\``);
  return c.join(', ');
}

/** The document's component schemas, for inlining a request body's `$ref`. */
let components = /** @type {Record<string, any>} */ ({});

/** A table of an object schema's properties (or one line for anything else); a `$ref` is linked and inlined. */
function propertiesTable(/** @type {any} */ s) {
  if (s?.$ref && components[refName(s.$ref)]) return `${typeOf(s)}:\n\n${propertiesTable(components[refName(s.$ref)])}`;
  if (!s?.properties) return `Type: ${typeOf(s)}${constraints(s) ? ` (${constraints(s)})` : ''}\n`;
  const required = new Set(s.required ?? []);
  const rows = Object.entries(s.properties).map(
    ([name, p]) =>
      `| \`${name}\` | ${typeOf(p)} | ${required.has(name) ? 'yes' : ''} | ${escapeCell([/** @type {any} */ (p).description, constraints(p)].filter(Boolean).join('; '))} |`,
  );
  return `${['| field | type | required | notes |', '|---|---|---|---|', ...rows].join('\n')}\n`;
}

/** One operation: summary, parameters, body, responses. */
function operation(/** @type {string} */ method, /** @type {string} */ path, /** @type {any} */ op) {
  const lines = [`## ${method.toUpperCase()} ${path.replace(/\{/g, '&#123;').replace(/\}/g, '&#125;')}`, ''];
  if (op.summary) lines.push(escapeCell(op.summary), '');
  if (op.description) lines.push(op.description, '');
  const security = op.security ?? null;
  if (Array.isArray(security) && security.length === 0) lines.push('No token needed.', '');
  if (op.parameters?.length) {
    lines.push('| parameter | in | type | required | notes |', '|---|---|---|---|---|');
    for (const p of op.parameters) {
      lines.push(
        `| \`${p.name}\` | ${p.in} | ${typeOf(p.schema)} | ${p.required ? 'yes' : ''} | ${escapeCell([p.description, constraints(p.schema)].filter(Boolean).join('; '))} |`,
      );
    }
    lines.push('');
  }
  const body = op.requestBody?.content;
  if (body) {
    for (const [type, media] of Object.entries(body)) {
      lines.push(
        `Request body (\`${type}\`${op.requestBody.required ? ', required' : ''}):`,
        '',
        propertiesTable(/** @type {any} */ (media).schema),
      );
    }
  }
  lines.push('| status | meaning | body |', '|---|---|---|');
  for (const [status, r] of Object.entries(op.responses ?? {})) {
    const content = /** @type {any} */ (r).content ?? {};
    const bodyType = Object.entries(content)
      .map(([type, media]) => `${typeOf(/** @type {any} */ (media).schema)} (\`${type}\`)`)
      .join(', ');
    lines.push(`| ${status} | ${escapeCell(/** @type {any} */ (r).description)} | ${bodyType} |`);
  }
  lines.push('');
  return lines.join('\n');
}

function page(/** @type {{ title: string, resources: string[] }} */ p, /** @type {any} */ doc) {
  const parts = [
    `# ${p.title}`,
    '',
    "<!-- Generated by docs/tools/http-reference.mjs from the Worker's /v1/openapi.json; do not edit. -->",
    '',
  ];
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!p.resources.includes(resourceOf(path))) continue;
    for (const [method, op] of Object.entries(/** @type {any} */ (item))) parts.push(operation(method, path, op));
  }
  return parts.join('\n');
}

function schemasPage(/** @type {any} */ doc) {
  const parts = [
    '# Schemas',
    '',
    "<!-- Generated by docs/tools/http-reference.mjs from the Worker's /v1/openapi.json; do not edit. -->",
    '',
  ];
  for (const [name, s] of Object.entries(doc.components?.schemas ?? {})) {
    parts.push(`## ${name}`, '');
    if (/** @type {any} */ (s).description) parts.push(/** @type {any} */ (s).description, '');
    parts.push(propertiesTable(s));
  }
  return parts.join('\n');
}

function indexPage(/** @type {any} */ doc) {
  const covered = new Set(PAGES.flatMap((p) => p.resources));
  const missing = Object.keys(doc.paths).filter((path) => !covered.has(resourceOf(path)));
  if (missing.length) throw new Error(`paths without a reference page (add them to PAGES): ${missing.join(', ')}`);
  return [
    `# HTTP API reference (${doc.info.title} ${doc.info.version})`,
    '',
    "<!-- Generated by docs/tools/http-reference.mjs from the Worker's /v1/openapi.json; do not edit. -->",
    '',
    doc.info.description ?? '',
    '',
    'These pages are rendered at build time from the OpenAPI document the Worker serves at `/v1/openapi.json`.',
    'A running Worker also serves it interactively at `/v1/docs` (Swagger UI, bundled into the Worker).',
    '',
    ...PAGES.map((p) => `- [${p.title}](./${p.slug})`),
    '- [Schemas](./schemas)',
    '- [The OpenAPI document](./openapi.json) as the build saw it',
    '',
    'Every error is `{ "error": { "code", "message" } }` with the status of its code; see [Troubleshooting](../../troubleshooting).',
    '',
  ].join('\n');
}

const doc = await servedDocument();
components = doc.components?.schemas ?? {};
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'index.md'), indexPage(doc));
for (const p of PAGES) writeFileSync(join(out, `${p.slug}.md`), page(p, doc));
writeFileSync(join(out, 'schemas.md'), schemasPage(doc));
// Served as a static file next to the pages (docs/public is the site's root for files).
const publicDir = join(docsDir, 'public', 'reference', 'http');
mkdirSync(publicDir, { recursive: true });
writeFileSync(join(publicDir, 'openapi.json'), JSON.stringify(doc, null, 2));
console.log(
  `http reference: ${Object.keys(doc.paths).length} paths, ${Object.keys(doc.components?.schemas ?? {}).length} schemas -> ${out}`,
);
