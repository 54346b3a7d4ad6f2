/**
 * Compile-time checks that the package's public types carry every field of the engine's shapes
 * (generated/engine.ts) and no field the engine does not know: a field added in Rust and forgotten here, or
 * misspelt here, fails `tsc`. Memories are snake_case in the engine (the export format) and camelCase here.
 */

import type * as engine from './generated/engine.js';
import type {
  ChangeEvent,
  ChangesPage,
  HistoryPage,
  ListNamespacesOptions,
  ListOptions,
  ListPage,
  Memory,
  MemoryInput,
  SearchQuery,
  WriteAck,
} from './types.js';

/** `snake_case` as `camelCase`. */
type Camel<S extends PropertyKey> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;

/** true when both sides have the same keys, else what differs (which fails `Check`, naming the fields). */
type SameKeys<Public, Engine extends PropertyKey> = [
  Exclude<Engine, keyof Public> | Exclude<keyof Public, Engine>,
] extends [never]
  ? true
  : { missingHere: Exclude<Engine, keyof Public>; unknownToTheEngine: Exclude<keyof Public, Engine> };
type Check<T extends true> = T;

export type EngineShapeChecks = [
  Check<SameKeys<MemoryInput, keyof engine.MemoryPut>>,
  Check<SameKeys<Memory, Camel<keyof engine.Memory>>>,
  Check<SameKeys<WriteAck, keyof engine.WriteAck>>,
  Check<SameKeys<ListOptions, keyof engine.ListQuery>>,
  Check<SameKeys<ListPage, keyof engine.ListPage>>,
  Check<SameKeys<HistoryPage, keyof engine.HistoryPage>>,
  Check<SameKeys<ListNamespacesOptions, keyof engine.NamespaceQuery>>,
  Check<SameKeys<SearchQuery, keyof engine.SearchQuery>>,
  Check<SameKeys<ChangeEvent, keyof engine.Event>>,
  Check<SameKeys<ChangesPage, keyof engine.ChangesPage>>,
];
