//! A JavaScript page store object (`{ get(key), readPage(key, offset, memory, ptr, len), put(key, bytes),
//! delete(key), sync() }`: the TypeScript layer's `EnginePages` around a host's store) as the engine's
//! [`PageStore`]. `put` receives a view into wasm memory that is only valid during the call: a store that
//! keeps the bytes must copy them.

use edgemem_core::PageStore;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The host object; see the TypeScript `PageStore` interface in `src/page-store.ts`.
    pub type JsPageStore;

    #[wasm_bindgen(method, catch, js_name = get)]
    fn js_get(this: &JsPageStore, key: &str) -> Result<JsValue, JsValue>;
    /// Copies the page at `key` from byte `offset` on into `memory` at `ptr` (at most `len` bytes): the
    /// count, or -1 when there is none.
    #[wasm_bindgen(method, catch, js_name = readPage)]
    fn js_read_into(
        this: &JsPageStore,
        key: &str,
        offset: u32,
        memory: &JsValue,
        ptr: u32,
        len: u32,
    ) -> Result<i32, JsValue>;
    #[wasm_bindgen(method, catch, js_name = put)]
    fn js_put(this: &JsPageStore, key: &str, value: &[u8]) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = delete)]
    fn js_delete(this: &JsPageStore, key: &str) -> Result<(), JsValue>;
    #[wasm_bindgen(method, catch, js_name = sync)]
    fn js_sync(this: &JsPageStore) -> Result<(), JsValue>;
}

pub struct HostPages(pub JsPageStore);

impl HostPages {
    /// The host's bytes at `key`, or None.
    fn bytes(&self, key: &str) -> Result<Option<js_sys::Uint8Array>, String> {
        let v = self.0.js_get(key).map_err(message)?;
        if v.is_undefined() || v.is_null() {
            return Ok(None);
        }
        v.dyn_into::<js_sys::Uint8Array>()
            .map(Some)
            .map_err(|_| format!("page store get({key}) returned something other than a Uint8Array"))
    }
}

thread_local! {
    /// This instance's memory, handed to `readPage` (fetched once: each fetch is a call into JS).
    static MEMORY: JsValue = wasm_bindgen::memory();
    /// Page writes left before a test-requested trap (0: none requested).
    static TRAP_AFTER: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Test hook (`__trapAfterPageWrites`): the `n`-th page write from now traps instead of happening.
pub fn trap_after_page_writes(n: u32) {
    TRAP_AFTER.with(|t| t.set(n));
}

fn count_page_write() {
    let left = TRAP_AFTER.with(|t| t.get());
    if left == 0 {
        return;
    }
    TRAP_AFTER.with(|t| t.set(left - 1));
    if left == 1 {
        #[cfg(target_arch = "wasm32")]
        core::arch::wasm32::unreachable();
    }
}

fn message(e: JsValue) -> String {
    match e.dyn_ref::<js_sys::Error>() {
        Some(err) => String::from(err.message()),
        None => format!("{e:?}"),
    }
}

impl PageStore for HostPages {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, String> {
        Ok(self.bytes(key)?.map(|b| b.to_vec()))
    }
    /// One call into JS copies the page straight into `dst` (SQLite's page buffer): no Vec in between.
    fn read_into(&self, key: &str, offset: usize, dst: &mut [u8]) -> Result<Option<usize>, String> {
        let (ptr, len) = (dst.as_mut_ptr() as u32, dst.len() as u32);
        // JS writes `dst` through the memory's buffer while this call holds the only borrow of it.
        let n = MEMORY.with(|m| self.0.js_read_into(key, offset as u32, m, ptr, len)).map_err(message)?;
        Ok(usize::try_from(n).ok())
    }
    fn put(&self, key: &str, value: &[u8]) -> Result<(), String> {
        count_page_write();
        self.0.js_put(key, value).map_err(message)
    }
    fn delete(&self, key: &str) -> Result<(), String> {
        self.0.js_delete(key).map_err(message)
    }
    fn sync(&self) -> Result<(), String> {
        self.0.js_sync().map_err(message)
    }
}
