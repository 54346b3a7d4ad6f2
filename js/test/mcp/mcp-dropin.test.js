// @ts-check
// edgemem's knowledge-graph tools against the reference server they replace: `@modelcontextprotocol/server-memory`
// itself (a dev dependency) runs over stdio on a temp memory.jsonl, ours in-process on a fresh store, both through
// the SDK's client. The same scripted calls go to both and every result is compared: the JSON text parsed, the
// structured content, and errors by their text. Where ours differs by design it says so:
// - search_nodes ranks: its first entities are exactly the reference's (compared as a set), best first, and it
//   may add a few entities that match some of the query's words (also compared as sets, with their relations);
// - a name given twice in one create_entities call is created once (the reference stores it twice).
// Then the reference's memory.jsonl is imported into another store and reads back as the same graph.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openStore } from 'edgemem';
import { importMemoryJsonl } from 'edgemem/mcp';
import { call, connectInProcess } from './mcp-client.js';

const dir = mkdtempSync(join(tmpdir(), 'edgemem-mcp-dropin-'));
const memoryFile = join(dir, 'memory.jsonl');
const referenceMain = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

const entity = (
  /** @type {string} */ name,
  /** @type {string} */ entityType,
  /** @type {string[]} */ observations = [],
) => ({ name, entityType, observations });
const relation = (/** @type {string} */ from, /** @type {string} */ relationType, /** @type {string} */ to) => ({
  from,
  to,
  relationType,
});

/** @type {[string, Record<string, unknown>][]} The script: every call goes to both servers, in this order. */
const SCRIPT = [
  ['read_graph', {}],
  [
    'create_entities',
    {
      entities: [
        entity('Alice', 'person', ['works at Acme', 'likes coffee']),
        entity('Bob', 'person', ['plays chess']),
        entity('Acme', 'company', ['makes anvils']),
      ],
    },
  ],
  ['create_entities', { entities: [entity('Alice', 'robot', ['ignored']), entity('Carol', 'person')] }],
  ['create_entities', { entities: [] }],
  [
    'create_relations',
    {
      relations: [
        relation('Alice', 'works_at', 'Acme'),
        relation('Bob', 'knows', 'Alice'),
        relation('Alice', 'knows', 'Zed'),
      ],
    },
  ],
  [
    'create_relations',
    {
      relations: [
        relation('Alice', 'works_at', 'Acme'),
        relation('Carol', 'knows', 'Bob'),
        relation('Alice', 'works_at', 'Bob'),
      ],
    },
  ],
  [
    'add_observations',
    {
      observations: [
        { entityName: 'Alice', contents: ['likes coffee', 'speaks French'] },
        { entityName: 'Bob', contents: ['x', 'x'] },
      ],
    },
  ],
  [
    'add_observations',
    {
      observations: [
        { entityName: 'Carol', contents: ['a'] },
        { entityName: 'Nobody', contents: ['b'] },
      ],
    },
  ],
  [
    'add_observations',
    {
      observations: [
        { entityName: 'Bob', contents: ['y'] },
        { entityName: 'Bob', contents: ['y', 'z'] },
      ],
    },
  ],
  ['open_nodes', { names: ['Carol'] }],
  [
    'delete_observations',
    {
      deletions: [
        { entityName: 'Alice', observations: ['speaks French', 'never said'] },
        { entityName: 'Nobody', observations: ['q'] },
      ],
    },
  ],
  ['search_nodes', { query: 'coffee' }],
  ['search_nodes', { query: 'ACME' }],
  ['search_nodes', { query: 'o' }],
  ['search_nodes', { query: '' }],
  ['search_nodes', { query: 'no such thing' }],
  ['search_nodes', { query: 'chess anvils' }],
  ['open_nodes', { names: ['Bob', 'Unknown', 'Alice', 'Bob'] }],
  ['open_nodes', { names: [] }],
  ['delete_relations', { relations: [relation('Bob', 'knows', 'Alice'), relation('No', 'such', 'relation')] }],
  ['delete_entities', { entityNames: ['Acme', 'Ghost'] }],
  ['read_graph', {}],
  ['create_entities', { entities: [entity('Acme', 'company', ['back again'])] }],
  ['create_relations', { relations: [relation('Carol', 'founded', 'Acme')] }],
  ['create_entities', { entities: [{ name: 'Broken', entityType: 'thing' }] }],
  ['add_observations', { observations: 'not an array' }],
  ['read_graph', {}],
];

/** @type {Client} */
let reference;
/** @type {Client} */
let ours;
/** @type {import('edgemem').MemoryStore} */
let store;

before(async () => {
  reference = new Client({ name: 'edgemem-test', version: '0' });
  await reference.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [referenceMain],
      env: { PATH: process.env.PATH ?? '', MEMORY_FILE_PATH: memoryFile },
      stderr: 'ignore',
    }),
  );
  store = await openStore({});
  ours = await connectInProcess(store);
});

after(async () => {
  await reference?.close();
  await ours?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** @param {any[]} xs */
const sorted = (xs) => [...xs].map((x) => JSON.stringify(x)).sort();

describe('drop-in for @modelcontextprotocol/server-memory', () => {
  it("lists the same nine tools: names, titles, input and output schemas, annotations (and descriptions but search_nodes')", async () => {
    const theirs = (await reference.listTools()).tools;
    const mine = (await ours.listTools()).tools.filter((t) => theirs.some((r) => r.name === t.name));
    assert.deepEqual(
      mine.map((t) => t.name),
      theirs.map((t) => t.name),
    );
    for (const [i, t] of theirs.entries()) {
      const m = /** @type {typeof t} */ (mine[i]);
      assert.deepEqual(m.inputSchema, t.inputSchema, `${t.name} input schema`);
      assert.deepEqual(m.outputSchema, t.outputSchema, `${t.name} output schema`);
      assert.deepEqual(m.annotations, t.annotations, `${t.name} annotations`);
      assert.equal(m.title, t.title);
      if (t.name === 'search_nodes') assert.ok(m.description?.startsWith(t.description ?? '?'));
      else assert.equal(m.description, t.description);
    }
  });

  it('answers the scripted calls as the reference does, call for call', async () => {
    for (const [i, [tool, args]] of SCRIPT.entries()) {
      const what = `call ${i}: ${tool} ${JSON.stringify(args)}`;
      const expected = await call(reference, tool, args);
      const actual = await call(ours, tool, args);
      assert.equal(actual.error, expected.error, what);
      if (tool !== 'search_nodes') {
        assert.equal(actual.text, expected.text, what);
        assert.deepEqual(actual.structured, expected.structured, what);
        continue;
      }
      // search_nodes: the reference's entities first (as a set), then perhaps a few more; relations touch them.
      const theirs = expected.json;
      const mine = actual.json;
      const firstOfMine = mine.entities.slice(0, theirs.entities.length);
      assert.deepEqual(sorted(firstOfMine), sorted(theirs.entities), what);
      const extras = mine.entities.slice(theirs.entities.length);
      const q = /** @type {string} */ (args.query).toLowerCase();
      for (const e of extras)
        assert.ok(!JSON.stringify(e).toLowerCase().includes(q) || q === '', `${what}: extra ${e.name}`);
      if (extras.length === 0) assert.deepEqual(sorted(mine.relations), sorted(theirs.relations), what);
      else for (const r of theirs.relations) assert.ok(sorted(mine.relations).includes(JSON.stringify(r)), what);
      assert.deepEqual(actual.structured, mine, what);
    }
  });

  it("ranks search_nodes results by relevance, and finds entities by some of the query's words", async () => {
    const coffee = await call(ours, 'search_nodes', { query: 'coffee' });
    assert.deepEqual(
      coffee.json.entities.map((/** @type {any} */ e) => e.name),
      ['Alice'],
    );
    const words = await call(ours, 'search_nodes', { query: 'chess coffee' });
    assert.deepEqual(words.json.entities.map((/** @type {any} */ e) => e.name).sort(), ['Alice', 'Bob']);
    assert.deepEqual((await call(reference, 'search_nodes', { query: 'chess coffee' })).json.entities, []);
    const person = await call(ours, 'search_nodes', { query: 'person' });
    assert.deepEqual(person.json.entities.map((/** @type {any} */ e) => e.name).sort(), ['Alice', 'Bob', 'Carol']);
  });

  it('creates a name given twice in one call once (the reference stores it twice)', async () => {
    const twice = await call(ours, 'create_entities', {
      entities: [entity('Twin', 'x', ['1']), entity('Twin', 'y', ['2'])],
    });
    assert.deepEqual(twice.json, [entity('Twin', 'x', ['1'])]);
    const rels = await call(ours, 'create_relations', {
      relations: [relation('Twin', 'is', 'Twin'), relation('Twin', 'is', 'Twin')],
    });
    assert.deepEqual(rels.json, [relation('Twin', 'is', 'Twin')]);
    await call(ours, 'delete_entities', { entityNames: ['Twin'] });
    assert.deepEqual((await call(ours, 'open_nodes', { names: ['Twin'] })).json, { entities: [], relations: [] });
  });

  it("imports the reference's memory.jsonl: the same graph reads back, and a second import adds nothing", async () => {
    const graph = (await call(reference, 'read_graph')).json;
    assert.ok(graph.entities.length >= 4 && graph.relations.length >= 3);
    const text = readFileSync(memoryFile, 'utf8');
    const fresh = await openStore({});
    assert.deepEqual(await importMemoryJsonl(fresh, text), {
      entities: graph.entities.length,
      relations: graph.relations.length,
    });
    const client = await connectInProcess(fresh);
    assert.deepEqual((await call(client, 'read_graph')).json, graph);
    assert.deepEqual(await importMemoryJsonl(fresh, text), { entities: 0, relations: 0 });
    await assert.rejects(importMemoryJsonl(fresh, '{"type":"entity","name":"x"}\n'), {
      code: 'INVALID_ARGUMENT',
      message: /line 1/,
    });
    await client.close();
    await fresh.close();
  });
});
