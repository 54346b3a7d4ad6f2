//! Engine errors (and adapter argument errors) as the plain JS objects the TypeScript layer turns into
//! `EdgememError`: `{ edgemem: true, code, message, oldestSeq? }`.

use edgemem_core::{Error, ErrorCode};
use wasm_bindgen::JsValue;

/// The largest integer a JavaScript number holds exactly (2^53 - 1). Seqs and versions cross the
/// boundary as numbers, so every value that leaves the engine is checked against it.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Converts an engine error into the thrown JS value.
pub fn to_js(e: Error) -> JsValue {
    let obj = js_sys::Object::new();
    set(&obj, "edgemem", &JsValue::TRUE);
    set(&obj, "code", &JsValue::from_str(e.code_str()));
    set(&obj, "message", &JsValue::from_str(&e.message));
    if let Some(s) = e.oldest_seq {
        set(&obj, "oldestSeq", &JsValue::from_f64(s as f64));
    }
    obj.into()
}

fn set(obj: &js_sys::Object, key: &str, value: &JsValue) {
    // Reflect::set only fails on frozen objects or proxies; this object is neither.
    let _ = js_sys::Reflect::set(obj, &JsValue::from_str(key), value);
}

pub fn invalid(message: impl Into<String>) -> JsValue {
    to_js(Error::invalid(message))
}

/// A JSON argument the TypeScript layer built: a parse failure is INVALID_ARGUMENT.
pub fn parse<T: serde::de::DeserializeOwned>(json: &str, what: &str) -> Result<T, JsValue> {
    serde_json::from_str(json).map_err(|e| invalid(format!("invalid {what}: {e}")))
}

/// A JSON argument passed as UTF-8 bytes, as text.
pub fn utf8(bytes: &[u8]) -> Result<&str, JsValue> {
    std::str::from_utf8(bytes).map_err(|e| invalid(format!("the argument is not UTF-8: {e}")))
}

/// A seq/version/count about to become a JS number.
pub fn safe(n: u64) -> Result<f64, JsValue> {
    if n > MAX_SAFE_INTEGER {
        return Err(to_js(Error::new(
            ErrorCode::Internal,
            format!("{n} exceeds 2^53-1, the largest integer a JavaScript number holds exactly"),
        )));
    }
    Ok(n as f64)
}

/// A seq argument from JS: a non-negative safe integer.
pub fn seq_arg(n: f64, what: &str) -> Result<u64, JsValue> {
    if !(n >= 0.0 && n <= MAX_SAFE_INTEGER as f64 && n.fract() == 0.0) {
        return Err(invalid(format!("{what} must be an integer in 0..=2^53-1")));
    }
    Ok(n as u64)
}
