//! The engine's one error type: a stable machine-readable code plus a human message.
//! Codes are shared by Rust, JavaScript and HTTP error bodies; never rename one.

use crate::base::wire_enum::wire_enum;
use std::fmt;

wire_enum! {
    /// Stable error codes. New codes may be added; existing ones never change meaning; `as_str` is
    /// the wire form, e.g. `INVALID_ARGUMENT`; `ALL` is what the generated TypeScript's `ERROR_CODES` is
    /// made from. A new code is one line here.
    #[non_exhaustive]
    pub enum ErrorCode {
        InvalidArgument = "INVALID_ARGUMENT",
        NotFound = "NOT_FOUND",
        Conflict = "CONFLICT",
        DimensionMismatch = "DIMENSION_MISMATCH",
        QuotaExceeded = "QUOTA_EXCEEDED",
        PayloadTooLarge = "PAYLOAD_TOO_LARGE",
        ResumeGap = "RESUME_GAP",
        HistoryPruned = "HISTORY_PRUNED",
        /// Used by the HTTP layer (missing or invalid token); never raised by the engine itself.
        Unauthorized = "UNAUTHORIZED",
        /// Used by the HTTP layer (token not valid for this agent or scope); never raised by the engine.
        Forbidden = "FORBIDDEN",
        /// Used by hosts that embed text (an embedder failed or answered badly); never raised by the engine.
        EmbeddingFailed = "EMBEDDING_FAILED",
        /// Used by hosts that call a caller's model for `remember` (an extractor or a judge failed or answered
        /// badly; nothing written); never raised by the engine.
        ModelFailed = "MODEL_FAILED",
        Internal = "INTERNAL",
    }
}

/// An engine error: `code` for programs, `message` for people. For RESUME_GAP, `oldest_seq`
/// says where the retained change feed starts so a client can resync.
#[derive(Debug, Clone, PartialEq)]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    pub oldest_seq: Option<u64>,
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error { code, message: message.into(), oldest_seq: None }
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArgument, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::NotFound, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }
    pub fn code_str(&self) -> &'static str {
        self.code.as_str()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        if let rusqlite::Error::SqliteFailure(f, _) = &e {
            if f.code == rusqlite::ErrorCode::DiskFull {
                return Error::new(ErrorCode::QuotaExceeded, format!("storage full: {e}"));
            }
        }
        Error::internal(format!("sqlite: {e}"))
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::invalid(format!("invalid JSON: {e}"))
    }
}
