//! The export format, one definition for both of its forms: the one-document export (`ExportDoc`,
//! [`FORMAT`]) and the NDJSON lines of a streamed one (`ExportLine`, [`STREAM_FORMAT`]), how each line is
//! written and read, and the lines a document stands for. Live memories (with embeddings), every version,
//! the commit log and checkpoints with their pending writes; the change feed is not exported (after an
//! import it starts at the imported seq).
//!
//! Lines, in order: `header`; `version` (every retained version in (namespace, key, seq) order, the live
//! ones with `seq_to: null` and their memory's `id`); `commits` (up to 1,000 (seq, ts) pairs a line);
//! `checkpoint` (without its pending writes); `write` (one pending write); `end` (the counts of every kind
//! of line, so an importer can tell a complete stream from a cut one).

use crate::base::error::{Error, Result};
use crate::base::types::{ExportCounts, Memory};
use crate::features::checkpoints::{Checkpoint, CheckpointData};
use serde::{Deserialize, Serialize};

pub const FORMAT: &str = "edgemem-export/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedVersion {
    pub memory: Memory,
    /// None for the live version.
    pub seq_to: Option<u64>,
    pub ended_at: Option<i64>,
    pub end_kind: Option<String>,
    /// A live version's memory id in the exporting store: an import gives the memory the same id, so it
    /// breaks search ties (by id) as the source did. Absent from exports before it (ids then follow the
    /// order of the lines) and from closed versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportDoc {
    pub format: String,
    pub dims: usize,
    pub metric: String,
    pub seq: u64,
    pub history_floor: u64,
    pub memories: Vec<Memory>,
    pub versions: Vec<ExportedVersion>,
    pub commits: Vec<(u64, i64)>,
    pub checkpoints: Vec<Checkpoint>,
}

/// The NDJSON export format's name (the `header` line's `format`).
pub const STREAM_FORMAT: &str = "edgemem-export/2";

/// One line of the NDJSON export: a JSON object whose `kind` names the variant (`header`, `version`,
/// `commits`, `checkpoint`, `write`, `end`), its other fields those of the variant's struct.
///
/// Written and read by hand (`to_line`, `parse`), not by serde's internally tagged enums: those buffer
/// every line into an intermediate tree and doubled the engine's wasm code for (de)serialising memories
/// and checkpoints (+43 KB gzip, past the package's budget).
#[derive(Debug, Clone, PartialEq)]
pub enum ExportLine {
    Header(ExportHeader),
    Version(ExportedVersion),
    Commits(ExportCommits),
    Checkpoint(Checkpoint),
    Write(ExportedWrite),
    End(ExportCounts),
}

/// The first line: what the export is of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportHeader {
    pub format: String,
    pub dims: usize,
    pub metric: String,
    pub seq: u64,
}

/// Up to 1,000 (seq, ts) pairs of the commit log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportCommits {
    pub items: Vec<(u64, i64)>,
}

#[derive(Deserialize)]
struct Kind<'a> {
    #[serde(borrow)]
    kind: std::borrow::Cow<'a, str>,
}

/// `{"kind":"<kind>",` + the rest of `inner`'s JSON object.
fn tagged<T: Serialize>(kind: &str, inner: &T) -> Result<String> {
    let body = serde_json::to_string(inner)?;
    let rest = body.strip_prefix('{').ok_or_else(|| Error::internal("an export line is not a JSON object"))?;
    let mut out = String::with_capacity(body.len() + kind.len() + 12);
    out.push_str("{\"kind\":\"");
    out.push_str(kind);
    out.push('"');
    if rest != "}" {
        out.push(',');
    }
    out.push_str(rest);
    Ok(out)
}

impl ExportLine {
    /// The line as JSON (no line end).
    pub fn to_line(&self) -> Result<String> {
        match self {
            ExportLine::Header(h) => tagged("header", h),
            ExportLine::Version(v) => tagged("version", v),
            ExportLine::Commits(c) => tagged("commits", c),
            ExportLine::Checkpoint(c) => tagged("checkpoint", c),
            ExportLine::Write(w) => tagged("write", w),
            ExportLine::End(e) => tagged("end", e),
        }
    }

    /// Reads one line (its `kind`, then the variant's fields; unknown fields are ignored).
    pub fn parse(line: &str) -> std::result::Result<ExportLine, serde_json::Error> {
        let kind: Kind = serde_json::from_str(line)?;
        Ok(match &*kind.kind {
            "header" => ExportLine::Header(serde_json::from_str(line)?),
            "version" => ExportLine::Version(serde_json::from_str(line)?),
            "commits" => ExportLine::Commits(serde_json::from_str(line)?),
            "checkpoint" => ExportLine::Checkpoint(serde_json::from_str(line)?),
            "write" => ExportLine::Write(serde_json::from_str(line)?),
            "end" => ExportLine::End(serde_json::from_str(line)?),
            other => return Err(serde::de::Error::custom(format!("unknown export line kind {other:?}"))),
        })
    }
}

/// One pending write of a checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExportedWrite {
    pub thread_id: String,
    pub checkpoint_ns: String,
    pub checkpoint_id: String,
    pub task_id: String,
    pub idx: i64,
    pub channel: String,
    pub value: CheckpointData,
}

/// The lines of a one-document export (`ExportDoc`), for `import`.
pub(crate) fn document_lines(doc: &crate::transfer::format::ExportDoc) -> Vec<ExportLine> {
    let mut lines = Vec::with_capacity(doc.versions.len() + doc.checkpoints.len() + 3);
    lines.push(ExportLine::Header(ExportHeader {
        format: STREAM_FORMAT.into(),
        dims: doc.dims,
        metric: doc.metric.clone(),
        seq: doc.seq,
    }));
    lines.extend(doc.versions.iter().cloned().map(ExportLine::Version));
    for chunk in doc.commits.chunks(1000) {
        lines.push(ExportLine::Commits(ExportCommits { items: chunk.to_vec() }));
    }
    lines.extend(doc.checkpoints.iter().cloned().map(ExportLine::Checkpoint));
    let writes = doc.checkpoints.iter().map(|c| c.pending_writes.len() as u64).sum();
    lines.push(ExportLine::End(ExportCounts {
        history_floor: doc.history_floor,
        versions: doc.versions.len() as u64,
        commits: doc.commits.len() as u64,
        checkpoints: doc.checkpoints.len() as u64,
        writes,
    }));
    lines
}
