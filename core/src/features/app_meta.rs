//! Host metadata: small named strings a host keeps in the store itself (e.g. which embedder made its vectors).

use crate::base::error::{Error, ErrorCode, Result};
use crate::storage::schema;
use crate::store::Store;

/// Prefix of host entries in the `meta` table, so they can never shadow the engine's own (`dims`, `seq_floor`…).
const PREFIX: &str = "host:";
/// Longest name, in bytes.
pub const MAX_APP_META_NAME: usize = 64;
/// Largest value, in bytes of UTF-8.
pub const MAX_APP_META_VALUE: usize = 64 * 1024;

fn check_name(name: &str) -> Result<String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_APP_META_NAME
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'));
    if !ok {
        return Err(Error::invalid(format!(
            "a metadata name is 1-{MAX_APP_META_NAME} characters of a-z, 0-9, '.', '_' or '-'"
        )));
    }
    Ok(format!("{PREFIX}{name}"))
}

impl Store {
    /// The host metadata entry `name`, or None.
    pub fn app_meta(&self, name: &str) -> Result<Option<String>> {
        let full = check_name(name)?;
        match schema::meta_get(&self.conn, &full)? {
            None => Ok(None),
            Some(rusqlite::types::Value::Text(s)) => Ok(Some(s)),
            Some(_) => Err(Error::internal(format!("metadata entry {name} is not text"))),
        }
    }

    /// Sets (Some) or removes (None) the host metadata entry `name`. Durable when it returns; no seq, no event.
    pub fn set_app_meta(&mut self, name: &str, value: Option<&str>) -> Result<()> {
        let full = check_name(name)?;
        self.import.check_writes()?;
        match value {
            Some(v) if v.len() > MAX_APP_META_VALUE => Err(Error::new(
                ErrorCode::PayloadTooLarge,
                format!("a metadata value is at most {MAX_APP_META_VALUE} bytes, got {}", v.len()),
            )),
            Some(v) => schema::meta_set(&self.conn, &full, v),
            None => {
                self.conn.execute("DELETE FROM meta WHERE name = ?1", [&full])?;
                Ok(())
            }
        }
    }
}
