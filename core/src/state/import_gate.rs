//! The import gate: while a streamed import is in progress (between its first and last chunks, across a
//! reopen too: its state is kept in `meta`), writes are refused with CONFLICT and retention waits. The
//! gate holds what the import has brought so far; the import itself (transfer/import.rs) moves it on.

use crate::base::error::{Error, ErrorCode, Result};
use crate::base::types::ExportCounts;
use crate::storage::schema;
use rusqlite::Connection;
use serde::{Deserialize, Serialize};

/// The `meta` row holding an unfinished import's state.
const STATE_META: &str = "import_state";

/// An import between its first and its last chunk.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct ImportState {
    /// The export's seq.
    pub seq: u64,
    /// The lines of each kind taken so far (`history_floor` unused until the `end` line).
    pub counts: ExportCounts,
    /// The last commit imported (seq, ts).
    pub last_commit: Option<(u64, i64)>,
    /// The host's note of where its source goes on after the last chunk taken (`Store::import_note`), kept in
    /// that chunk's transaction: a host killed mid-import resumes from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The Store's part for an import in progress.
#[derive(Debug, Default)]
pub(crate) struct ImportGate {
    import: Option<ImportState>,
}

impl ImportGate {
    /// The persisted state of an unfinished import (on open).
    pub(crate) fn load(conn: &Connection) -> Result<ImportGate> {
        let import = match schema::meta_get(conn, STATE_META)? {
            Some(rusqlite::types::Value::Text(s)) => {
                Some(serde_json::from_str(&s).map_err(|e| Error::internal(format!("import state: {e}")))?)
            }
            _ => None,
        };
        Ok(ImportGate { import })
    }

    /// CONFLICT while an import is in progress (every write path checks it).
    pub(crate) fn check_writes(&self) -> Result<()> {
        if self.import.is_some() {
            return Err(Error::new(
                ErrorCode::Conflict,
                "an import is in progress: writes wait until its last chunk (or a failed chunk) ends it",
            ));
        }
        Ok(())
    }

    pub(crate) fn importing(&self) -> bool {
        self.import.is_some()
    }

    /// The import in progress, if any.
    pub(crate) fn state(&self) -> Option<&ImportState> {
        self.import.as_ref()
    }

    /// Persists `state` (None: no import in progress) inside the caller's transaction; `set` it once that
    /// commits.
    pub(crate) fn save(conn: &Connection, state: Option<&ImportState>) -> Result<()> {
        match state {
            Some(st) => schema::meta_set(conn, STATE_META, serde_json::to_string(st)?),
            None => {
                conn.execute("DELETE FROM meta WHERE name = ?1", [STATE_META])?;
                Ok(())
            }
        }
    }

    /// The state a committed transaction saved.
    pub(crate) fn set(&mut self, state: Option<ImportState>) {
        self.import = state;
    }
}
