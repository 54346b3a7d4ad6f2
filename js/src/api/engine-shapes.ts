/**
 * Compile-time checks that the package's public types carry every field of the engine's shapes
 * (generated/engine.ts) and no field the engine does not know, and that the fields they share have the same
 * types: a field added or retyped in Rust and forgotten here, or misspelt here, fails `tsc`. Memories are
 * snake_case in the engine (the export format) and camelCase here.
 */

import type * as engine from './generated/engine.js';
import type {
  ChangeEvent,
  ChangesPage,
  FusionOptions,
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
  // `coherence` is replication's own field of a put (what `remember` keeps), not a caller's.
  Check<SameKeys<MemoryInput, Exclude<keyof engine.MemoryPut, 'coherence'>>>,
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

/** The shared fields whose types differ between the two sides (neither is assignable to the other), by name. */
type DifferentTypes<Public, Engine, Except extends PropertyKey = never> = {
  [K in Exclude<keyof Public & keyof Engine, Except>]: [NonNullable<Public[K]>] extends [NonNullable<Engine[K]>]
    ? [NonNullable<Engine[K]>] extends [NonNullable<Public[K]>]
      ? never
      : K
    : K;
}[Exclude<keyof Public & keyof Engine, Except>];
type SameTypes<Public, Engine, Except extends PropertyKey = never> = [DifferentTypes<Public, Engine, Except>] extends [
  never,
]
  ? true
  : { differentTypes: DifferentTypes<Public, Engine, Except> };

/**
 * And the types of the fields both sides share agree, but where the package converts on purpose (named here,
 * with why): a vector may be a Float32Array (sent as f32 bytes); `evicted` pairs become objects; memories are
 * camelCase here (their lists are checked through `Memory` above); fusion settings are partial (the engine fills
 * in the defaults); a change page's events are `ChangeEvent`s (checked on their own).
 */
/** An engine shape with its snake_case fields renamed camelCase. */
type Camelized<T> = { [K in keyof T as Camel<K & string>]: T[K] };

export type EngineTypeChecks = [
  Check<SameTypes<Memory, Camelized<engine.Memory>, 'embedding'>>,
  Check<SameTypes<MemoryInput, engine.MemoryPut, 'embedding'>>,
  Check<SameTypes<WriteAck, engine.WriteAck, 'evicted'>>,
  Check<SameTypes<ListOptions, engine.ListQuery>>,
  Check<SameTypes<ListPage, engine.ListPage, 'items'>>,
  Check<SameTypes<HistoryPage, engine.HistoryPage, 'versions'>>,
  Check<SameTypes<ListNamespacesOptions, engine.NamespaceQuery>>,
  Check<SameTypes<SearchQuery, engine.SearchQuery, 'vector' | 'fusion'>>,
  Check<SameTypes<Required<FusionOptions>, engine.FusionParams>>,
  Check<SameTypes<ChangeEvent, engine.Event>>,
  Check<SameTypes<ChangesPage, engine.ChangesPage, 'events'>>,
];
