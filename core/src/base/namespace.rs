//! Namespaces: validated path segments, stored joined so that a prefix is a key range.
//! Each segment is followed by U+001F, so ["user","42"] never matches ["user","420"].

use crate::base::error::{Error, Result};

pub const SEP: char = '\u{1f}';
pub const MAX_DEPTH: usize = 16;
pub const MAX_SEGMENT_BYTES: usize = 256;
pub const MAX_KEY_BYTES: usize = 512;

fn check_segment(s: &str, what: &str) -> Result<()> {
    if s.is_empty() {
        return Err(Error::invalid(format!("{what} must not be empty")));
    }
    if s.chars().any(|c| c.is_control()) {
        return Err(Error::invalid(format!("{what} must not contain control characters")));
    }
    Ok(())
}

/// Validates a full namespace (1..=16 segments) and encodes it.
pub fn encode(ns: &[String]) -> Result<String> {
    if ns.is_empty() {
        return Err(Error::invalid("namespace must have at least one segment"));
    }
    encode_prefix(ns)
}

/// Validates a namespace prefix (0..=16 segments) and encodes it.
pub fn encode_prefix(ns: &[String]) -> Result<String> {
    if ns.len() > MAX_DEPTH {
        return Err(Error::invalid(format!("namespace depth {} exceeds {MAX_DEPTH}", ns.len())));
    }
    let mut out = String::new();
    for seg in ns {
        check_segment(seg, "namespace segment")?;
        if seg.len() > MAX_SEGMENT_BYTES {
            return Err(Error::invalid(format!("namespace segment longer than {MAX_SEGMENT_BYTES} bytes")));
        }
        out.push_str(seg);
        out.push(SEP);
    }
    Ok(out)
}

pub fn decode(joined: &str) -> Vec<String> {
    segments(joined).map(str::to_string).collect()
}

/// The segments of an encoded namespace, borrowed.
pub fn segments(joined: &str) -> impl Iterator<Item = &str> {
    joined.split(SEP).filter(|s| !s.is_empty())
}

/// `.` and `..`: a URL cannot carry them as a path segment (it resolves them away as dot segments), so the
/// HTTP API could never address them; keys and checkpoint thread ids refuse them on every surface.
pub fn is_dot_segment(s: &str) -> bool {
    s == "." || s == ".."
}

pub fn check_key(key: &str) -> Result<()> {
    check_segment(key, "key")?;
    if is_dot_segment(key) {
        return Err(Error::invalid("key must not be '.' or '..'"));
    }
    if key.len() > MAX_KEY_BYTES {
        return Err(Error::invalid(format!("key longer than {MAX_KEY_BYTES} bytes")));
    }
    Ok(())
}

/// The exclusive upper bound of the key range holding every namespace under `prefix`
/// (None for the empty prefix: everything).
pub fn prefix_end(prefix: &str) -> Option<String> {
    if prefix.is_empty() {
        return None;
    }
    // Every encoded prefix ends with SEP (U+001F); the next character bounds the range.
    let mut s = prefix[..prefix.len() - 1].to_string();
    s.push('\u{20}');
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;
    #[test]
    fn prefix_range_is_segment_exact() {
        let p = encode_prefix(&["user".into(), "42".into()]).unwrap();
        let end = prefix_end(&p).unwrap();
        let inside = encode(&["user".into(), "42".into(), "prefs".into()]).unwrap();
        let outside = encode(&["user".into(), "420".into()]).unwrap();
        assert!(inside.as_str() >= p.as_str() && inside.as_str() < end.as_str());
        assert!(!(outside.as_str() >= p.as_str() && outside.as_str() < end.as_str()));
        assert_eq!(decode(&inside), vec!["user", "42", "prefs"]);
    }

    #[test]
    fn dot_keys_are_refused() {
        for k in [".", ".."] {
            assert_eq!(check_key(k).unwrap_err().code, crate::base::error::ErrorCode::InvalidArgument, "{k}");
        }
        for k in ["...", "a.", ".a", "%2E", "a/b"] {
            assert!(check_key(k).is_ok(), "{k}");
        }
    }
}
