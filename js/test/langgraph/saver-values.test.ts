/**
 * EdgememSaver hands back channel values, metadata and writes exactly as LangGraph's own savers do: plain JSON
 * (returned as the store parsed it) and values LangGraph's serializer revives (Set, Map, undefined, Error,
 * messages, a `__proto__` key), compared with MemorySaver's answers.
 */
import { HumanMessage } from '@langchain/core/messages';
import {
  type BaseCheckpointSaver,
  type Checkpoint,
  emptyCheckpoint,
  JsonPlusSerializer,
  MemorySaver,
  uuid6,
} from '@langchain/langgraph-checkpoint';
import { openStore } from 'edgemem';
import { EdgememSaver } from 'edgemem/langgraph';

const VALUES: Record<string, unknown> = {
  plain: { a: [1, 2.5, 'x', null, true], nested: { deep: [{ k: 'v' }] } },
  set: new Set([1, 2, 3]),
  map: new Map([['k', { v: 1 }]]),
  undef: { kept: undefined, list: [undefined, 1] },
  error: new Error('boom'),
  message: [new HumanMessage('hello')],
  lcLike: { lc: 3, type: 'not a record' },
  proto: JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as unknown,
};

async function roundTrip(saver: BaseCheckpointSaver) {
  const checkpoint: Checkpoint = {
    ...emptyCheckpoint(),
    id: uuid6(-1),
    channel_values: VALUES,
    channel_versions: Object.fromEntries(Object.keys(VALUES).map((k) => [k, 1])),
  };
  const config = await saver.put(
    { configurable: { thread_id: 't', checkpoint_ns: '' } },
    checkpoint,
    { source: 'input', step: -1, parents: {}, extra: new Set(['m']) } as never,
    checkpoint.channel_versions,
  );
  await saver.putWrites(
    config,
    [
      ['plain', { w: 1 }],
      ['set', new Set(['w'])],
    ],
    'task',
  );
  const got = await saver.getTuple(config);
  const listed = [];
  for await (const t of saver.list({ configurable: { thread_id: 't' } })) listed.push(t);
  return {
    values: got?.checkpoint.channel_values,
    metadata: got?.metadata,
    writes: got?.pendingWrites,
    listed: listed.map((t) => t.checkpoint.channel_values),
  };
}

it('EdgememSaver returns the values MemorySaver returns', async () => {
  const store = await openStore({});
  const ours = await roundTrip(new EdgememSaver(store));
  const theirs = await roundTrip(new MemorySaver());
  expect(ours.values).toEqual(theirs.values);
  expect(ours.listed).toEqual(theirs.listed);
  expect(ours.metadata).toEqual(theirs.metadata);
  expect(ours.writes).toEqual(theirs.writes);
  expect(ours.values?.set).toBeInstanceOf(Set);
  expect(ours.values?.map).toBeInstanceOf(Map);
  expect(ours.values?.error).toBeInstanceOf(Error);
  expect((ours.values?.message as unknown[] | undefined)?.[0]).toBeInstanceOf(HumanMessage);
  expect(Object.getPrototypeOf(theirs.values?.proto)).toEqual({ polluted: true }); // LangGraph's reviver sets it
  expect(Object.getPrototypeOf(ours.values?.proto)).toEqual(Object.getPrototypeOf(theirs.values?.proto));
  await store.close();
});

it("with a serializer other than LangGraph's own (its JSON parsed and checked here), the same values", async () => {
  class OwnSerializer extends JsonPlusSerializer {}
  const store = await openStore({});
  const ours = await roundTrip(new EdgememSaver(store, new OwnSerializer()));
  const theirs = await roundTrip(new MemorySaver());
  expect(ours.values).toEqual(theirs.values);
  expect(ours.listed).toEqual(theirs.listed);
  expect(ours.metadata).toEqual(theirs.metadata);
  expect(ours.writes).toEqual(theirs.writes);
  await store.close();
});
