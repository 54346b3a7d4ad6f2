//! The TypeScript of the engine's JSON shapes, generated from the Rust types: `js/src/api/generated/engine.ts`,
//! which the npm package and the Worker import. The test fails when the committed file is stale;
//! `EDGEMEM_WRITE_TS=1 cargo test -p edgemem-core --lib ts_bindings` rewrites it.
// wasm-test: native-only (it reads and writes a file of the repository)

use crate::base::error::ErrorCode;
use crate::base::filter::{Condition, FilterOp};
use crate::base::types::{AsOf, ListPage, ListQuery, Memory, MemoryPut, WriteAck};
use crate::config::CoherenceSettings;
use crate::config::{Metric, Retention, ScalarKind, StoreOptions};
use crate::features::coherence::consolidate::{ConsolidateQuery, ConsolidateReport};
use crate::features::coherence::context::{ContextBlock, ContextItem, ContextQuery};
use crate::features::coherence::{Assessment, Decision, RememberInput, Remembered, Target};
use crate::features::memories::crud::HistoryPage;
use crate::features::memories::namespaces::NamespaceQuery;
use crate::features::search::fusion::{FusionMethod, FusionParams};
use crate::features::search::query::{SearchHit, SearchMode, SearchQuery};
use crate::features::stats::Stats;
use crate::state::feed::{ChangesPage, Event, EventFilter, EventKind};
use crate::transfer::import::ImportProgress;
use ts_rs::{Config, TS};

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../js/src/api/generated/engine.ts");

/// `export const NAME = [...] as const;` and its union type `TYPE`.
fn names(out: &mut String, doc: &str, name: &str, ty: &str, values: impl IntoIterator<Item = &'static str>) {
    let list: Vec<String> = values.into_iter().map(|v| format!("'{v}'")).collect();
    out.push_str(&format!(
        "/** {doc} */\nexport const {name} = [{}] as const;\nexport type {ty} = (typeof {name})[number];\n\n",
        list.join(", ")
    ));
}

/// The values of a serde enum of unit variants, read from the union ts-rs declares for it.
fn union_values<T: TS>(cfg: &Config) -> Vec<&'static str> {
    let inline = T::inline(cfg);
    inline
        .split(" | ")
        .map(|v| {
            let v = v.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or_else(|| panic!("{inline}"));
            &*Box::leak(v.to_string().into_boxed_str())
        })
        .collect()
}

fn decl<T: TS>(out: &mut String, cfg: &Config) {
    if let Some(docs) = T::docs() {
        out.push_str(&docs);
    }
    out.push_str("export ");
    out.push_str(&T::decl(cfg));
    out.push_str("\n\n");
}

/// The limits `ENGINE_LIMITS` lists, from the constants the engine checks.
fn engine_limits() -> serde_json::Value {
    use crate::base::{filter, namespace};
    use crate::features::{app_meta, changes, memories::crud};
    serde_json::json!({
        "k": crate::features::search::query::MAX_K,
        "batchItems": crud::MAX_BATCH,
        "historyPageItems": crud::HISTORY_PAGE_MAX,
        "ttlMs": crud::MAX_TTL_MS,
        "namespaceDepth": namespace::MAX_DEPTH,
        "segmentBytes": namespace::MAX_SEGMENT_BYTES,
        "keyBytes": namespace::MAX_KEY_BYTES,
        "dims": crate::vectors::index::MAX_DIMS,
        "filterConditions": filter::MAX_CONDITIONS,
        "filterFieldBytes": filter::MAX_FIELD_BYTES,
        "notifyPayloadBytes": changes::MAX_NOTIFY_PAYLOAD_BYTES,
        "channelBytes": changes::MAX_CHANNEL_BYTES,
        "appMetaNameBytes": app_meta::MAX_APP_META_NAME,
        "appMetaValueBytes": app_meta::MAX_APP_META_VALUE,
        "fusion": crate::features::search::fusion::FUSION_RANGES,
    })
}

/// A JSON object with each top-level field on a line of its own, its value compact.
fn one_line_per_field(v: &serde_json::Value) -> String {
    let fields: Vec<String> = v
        .as_object()
        .expect("an object")
        .iter()
        .map(|(k, v)| format!("  {k}: {}", serde_json::to_string(v).unwrap()))
        .collect();
    format!("{{\n{},\n}}", fields.join(",\n"))
}

fn generate() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut out = String::from(
        "// Generated from the engine's Rust types by core/src/ts_bindings.rs; do not edit. Regenerate with\n\
         // `EDGEMEM_WRITE_TS=1 cargo test -p edgemem-core --lib ts_bindings` (the test fails while it is stale).\n\n",
    );
    names(
        &mut out,
        "Every error code (core/src/base/error.rs).",
        "ERROR_CODES",
        "ErrorCode",
        ErrorCode::ALL.iter().map(|c| c.as_str()),
    );
    names(
        &mut out,
        "Every kind of change-feed event (core/src/state/feed.rs).",
        "EVENT_KINDS",
        "EventKind",
        EventKind::ALL.iter().map(|k| k.as_str()),
    );
    names(&mut out, "Vector metrics.", "METRICS", "Metric", Metric::ALL.iter().map(|m| m.as_str()));
    names(
        &mut out,
        "How the vector index stores vectors.",
        "SCALAR_KINDS",
        "ScalarKind",
        ScalarKind::ALL.iter().map(|s| s.as_str()),
    );
    names(&mut out, "Search modes.", "SEARCH_MODES", "SearchMode", union_values::<SearchMode>(&cfg));
    names(&mut out, "Hybrid fusion methods.", "FUSION_METHODS", "FusionMethod", union_values::<FusionMethod>(&cfg));
    names(&mut out, "Filter operators.", "FILTER_OPS", "FilterOp", union_values::<FilterOp>(&cfg));
    out.push_str(&format!(
        "/** The engine's fusion settings when a search names none. */\nexport const FUSION_DEFAULTS: FusionParams = {};\n\n",
        serde_json::to_string(&FusionParams::default()).unwrap()
    ));
    out.push_str(&format!(
        "/** The engine's retention when a store names none. */\nexport const RETENTION_DEFAULTS: Retention = {};\n\n",
        serde_json::to_string(&Retention::default()).unwrap()
    ));
    out.push_str(&format!(
        "/**\n * The engine's limits on its inputs: past them a call is refused (INVALID_ARGUMENT; sizes PAYLOAD_TOO_LARGE) on\n * every surface. Ranges are inclusive `[lowest, highest]`. The Worker's limits (workers/src/limits.ts) are these\n * or tighter.\n */\nexport const ENGINE_LIMITS = {} as const;\n\n",
        one_line_per_field(&engine_limits())
    ));
    out.push_str(
        "export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };\n\n",
    );
    out.push_str(&format!(
        "/** `remember`'s settings when a store names none. */\nexport const COHERENCE_DEFAULTS: CoherenceSettings = {};\n\n",
        serde_json::to_string(&CoherenceSettings::default()).unwrap()
    ));
    decl::<AsOf>(&mut out, &cfg);
    out.push_str(
        "/** Valid time for a read: a time (ms since the epoch), or \"any\" for every memory however valid. */\nexport type ValidAt = number | \"any\";\n\n",
    );
    decl::<Condition>(&mut out, &cfg);
    decl::<MemoryPut>(&mut out, &cfg);
    decl::<Memory>(&mut out, &cfg);
    decl::<WriteAck>(&mut out, &cfg);
    decl::<ListQuery>(&mut out, &cfg);
    decl::<ListPage>(&mut out, &cfg);
    decl::<HistoryPage>(&mut out, &cfg);
    decl::<NamespaceQuery>(&mut out, &cfg);
    decl::<FusionParams>(&mut out, &cfg);
    decl::<SearchQuery>(&mut out, &cfg);
    decl::<SearchHit>(&mut out, &cfg);
    decl::<Event>(&mut out, &cfg);
    decl::<EventFilter>(&mut out, &cfg);
    decl::<ChangesPage>(&mut out, &cfg);
    decl::<Stats>(&mut out, &cfg);
    decl::<ImportProgress>(&mut out, &cfg);
    decl::<Retention>(&mut out, &cfg);
    decl::<CoherenceSettings>(&mut out, &cfg);
    decl::<Decision>(&mut out, &cfg);
    decl::<Target>(&mut out, &cfg);
    decl::<RememberInput>(&mut out, &cfg);
    decl::<Remembered>(&mut out, &cfg);
    decl::<Assessment>(&mut out, &cfg);
    decl::<ConsolidateQuery>(&mut out, &cfg);
    decl::<ConsolidateReport>(&mut out, &cfg);
    decl::<ContextQuery>(&mut out, &cfg);
    decl::<ContextItem>(&mut out, &cfg);
    decl::<ContextBlock>(&mut out, &cfg);
    decl::<StoreOptions>(&mut out, &cfg);
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[test]
fn the_committed_typescript_is_generated_from_these_types() {
    let fresh = generate();
    if std::env::var_os("EDGEMEM_WRITE_TS").is_some() {
        std::fs::create_dir_all(std::path::Path::new(PATH).parent().unwrap()).unwrap();
        std::fs::write(PATH, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(PATH).unwrap_or_default();
    assert!(
        committed == fresh,
        "js/src/api/generated/engine.ts is stale: run `EDGEMEM_WRITE_TS=1 cargo test -p edgemem-core --lib ts_bindings`"
    );
}
