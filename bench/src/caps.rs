//! Caps suite: a store capped at 2 MiB takes 4,000 inserts of 1 KiB values (every 500th pinned) while a
//! few older keys are re-read now and then, so LRU order differs from insertion order. Reports the peak
//! usage after every write (never above the cap), final usage, survivors by insertion decile and
//! pinned evictions (must be 0).

use edgemem_core::{Caps, MemoryPut, Store, StoreConfig};
use serde::Serialize;
use serde_json::json;
use std::collections::BTreeSet;

/// The workload's shape. `Plan::default()` is the suite; tests run a smaller one.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub cap_bytes: u64,
    pub inserts: usize,
    /// Serialized JSON size of each value.
    pub value_bytes: usize,
    /// Key `i` is pinned when `i % pin_every == 0`.
    pub pin_every: usize,
    /// Key `i` is a re-read ("touched") key when `i % touch_every == touch_every / 2` and `i` is in the
    /// first half of the inserts (old keys that LRU keeps only because they are read).
    pub touch_every: usize,
    /// Every `read_every` inserts, all touched keys inserted so far are read once.
    pub read_every: usize,
}

impl Default for Plan {
    fn default() -> Self {
        Plan {
            cap_bytes: 2 << 20,
            inserts: 4_000,
            value_bytes: 1024,
            pin_every: 500,
            touch_every: 100,
            read_every: 100,
        }
    }
}

impl Plan {
    pub fn is_pinned(&self, i: usize) -> bool {
        i.is_multiple_of(self.pin_every)
    }
    pub fn is_touched(&self, i: usize) -> bool {
        !self.is_pinned(i) && i < self.inserts / 2 && i % self.touch_every == self.touch_every / 2
    }
    /// Insertion decile (0..=9) of key `i`.
    pub fn decile(&self, i: usize) -> usize {
        (i * 10 / self.inserts.max(1)).min(9)
    }
}

/// One row of the survivors table: keys inserted in one tenth of the run, and which are still live.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Decile {
    pub decile: usize,
    pub inserted: usize,
    pub survived: usize,
    /// Of the survivors: pinned keys.
    pub pinned: usize,
    /// Of the survivors: re-read (touched) keys.
    pub touched: usize,
}

/// Buckets the surviving key indexes by insertion decile.
pub fn by_decile(plan: &Plan, survivors: &BTreeSet<usize>) -> Vec<Decile> {
    let mut rows: Vec<Decile> = (0..10).map(|decile| Decile { decile, ..Default::default() }).collect();
    for i in 0..plan.inserts {
        let row = &mut rows[plan.decile(i)];
        row.inserted += 1;
        if survivors.contains(&i) {
            row.survived += 1;
            row.pinned += plan.is_pinned(i) as usize;
            row.touched += plan.is_touched(i) as usize;
        }
    }
    rows
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub cap_bytes: u64,
    pub peak_bytes: u64,
    pub final_bytes: u64,
    pub final_pct_of_cap: f64,
    pub inserts: usize,
    pub reads: usize,
    pub evictions: usize,
    pub pinned_keys: usize,
    pub pinned_evicted: usize,
    pub touched_keys: usize,
    pub touched_survived: usize,
    pub survivors: usize,
    pub survivors_by_decile: Vec<Decile>,
}

/// A JSON object exactly `bytes` long when serialized (`bytes` >= 32): the key index and padding. An
/// object, not a string: a string value would also be stored as the memory's search text and count twice.
fn value(i: usize, bytes: usize) -> serde_json::Value {
    let bare = json!({"i": i, "pad": ""}).to_string().len();
    json!({"i": i, "pad": "x".repeat(bytes - bare)})
}

pub fn measure(plan: &Plan) -> Result<Report, String> {
    let e = |e: edgemem_core::Error| e.to_string();
    let caps = Caps { max_bytes: plan.cap_bytes, max_memories: 0 };
    let mut s = Store::open(StoreConfig { caps, ..StoreConfig::memory(0) }).map_err(e)?;
    let ns = vec!["caps".to_string()];
    let key = |i: usize| format!("k{i:05}");
    let (mut peak, mut reads, mut evictions, mut pinned_evicted) = (0u64, 0usize, 0usize, 0usize);
    let mut evicted: BTreeSet<String> = BTreeSet::new();
    for i in 0..plan.inserts {
        let put = MemoryPut::new(&["caps"], &key(i), value(i, plan.value_bytes)).pinned(plan.is_pinned(i));
        let ack = s.put(put).map_err(|err| format!("insert {i}: {err}"))?;
        for (_, k) in ack.evicted {
            let idx: usize = k[1..].parse().map_err(|_| format!("unexpected evicted key {k}"))?;
            evictions += 1;
            pinned_evicted += plan.is_pinned(idx) as usize;
            evicted.insert(k);
        }
        peak = peak.max(s.stats().map_err(e)?.bytes);
        if (i + 1) % plan.read_every == 0 {
            for t in (0..=i).filter(|&t| plan.is_touched(t)) {
                // A touched key is read within `read_every` inserts of being written, before LRU reaches it.
                if s.get(&ns, &key(t)).map_err(e)?.is_none() {
                    return Err(format!("touched key {} was evicted before its first re-read", key(t)));
                }
                reads += 1;
            }
        }
    }
    let stats = s.stats().map_err(e)?;
    // Survivors: every key not reported evicted; each is checked to be live (reads change recency only).
    let mut survivors = BTreeSet::new();
    for i in 0..plan.inserts {
        let live = s.get(&ns, &key(i)).map_err(e)?.is_some();
        if live == evicted.contains(&key(i)) {
            return Err(format!("{}: live = {live}, but evicted = {}", key(i), !live));
        }
        if live {
            survivors.insert(i);
        }
    }
    let touched: Vec<usize> = (0..plan.inserts).filter(|&i| plan.is_touched(i)).collect();
    Ok(Report {
        cap_bytes: plan.cap_bytes,
        peak_bytes: peak,
        final_bytes: stats.bytes,
        final_pct_of_cap: 100.0 * stats.bytes as f64 / plan.cap_bytes as f64,
        inserts: plan.inserts,
        reads,
        evictions,
        pinned_keys: (0..plan.inserts).filter(|&i| plan.is_pinned(i)).count(),
        pinned_evicted,
        touched_survived: touched.iter().filter(|i| survivors.contains(i)).count(),
        touched_keys: touched.len(),
        survivors: survivors.len(),
        survivors_by_decile: by_decile(plan, &survivors),
    })
}

pub fn run(_args: &[String], as_json: bool) -> Result<(), String> {
    let plan = Plan::default();
    let r = measure(&plan)?;
    if as_json {
        println!("{}", json!({ "caps": r }));
    } else {
        println!(
            "caps: {} inserts of {} B values into a {} KiB cap (every {}th pinned; {} older keys re-read every {} inserts)",
            r.inserts, plan.value_bytes, r.cap_bytes / 1024, plan.pin_every, r.touched_keys, plan.read_every
        );
        println!(
            "peak {} B ({}), final {} B = {:.1} % of the cap; {} evictions, {} survivors; pinned evicted {}/{}; touched survived {}/{}",
            r.peak_bytes,
            if r.peak_bytes <= r.cap_bytes { "never above the cap" } else { "ABOVE THE CAP" },
            r.final_bytes,
            r.final_pct_of_cap,
            r.evictions,
            r.survivors,
            r.pinned_evicted,
            r.pinned_keys,
            r.touched_survived,
            r.touched_keys
        );
        println!("{:<8} {:>9} {:>9} {:>7} {:>8}", "decile", "inserted", "survived", "pinned", "touched");
        for d in &r.survivors_by_decile {
            println!("{:<8} {:>9} {:>9} {:>7} {:>8}", d.decile, d.inserted, d.survived, d.pinned, d.touched);
        }
    }
    if r.peak_bytes > r.cap_bytes || r.pinned_evicted > 0 {
        return Err(format!(
            "caps violated: peak {} B over a {} B cap, {} pinned evicted",
            r.peak_bytes, r.cap_bytes, r.pinned_evicted
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_and_deciles() {
        let p = Plan::default();
        assert_eq!((0..p.inserts).filter(|&i| p.is_pinned(i)).count(), 8);
        assert_eq!((0..p.inserts).filter(|&i| p.is_touched(i)).count(), 20);
        assert!(p.is_touched(50) && !p.is_touched(2050) && !p.is_touched(500));
        assert_eq!((p.decile(0), p.decile(399), p.decile(400), p.decile(3999)), (0, 0, 1, 9));
        assert_eq!(value(7, 1024).to_string().len(), 1024);
        let rows = by_decile(&p, &[0, 50, 51, 3999].into_iter().collect());
        assert_eq!(rows[0], Decile { decile: 0, inserted: 400, survived: 3, pinned: 1, touched: 1 });
        assert_eq!(rows[9].survived, 1);
        assert_eq!(rows.iter().map(|r| r.inserted).sum::<usize>(), 4000);
    }

    /// The same measurement on a small store: the cap holds, pins and re-read keys survive, and the
    /// untouched survivors are the most recent inserts.
    #[test]
    fn small_run_keeps_the_cap_and_lru_order() {
        let p = Plan {
            cap_bytes: 64 << 10,
            inserts: 400,
            value_bytes: 512,
            pin_every: 100,
            touch_every: 20,
            read_every: 20,
        };
        let r = measure(&p).unwrap();
        assert!(r.peak_bytes <= r.cap_bytes && r.peak_bytes > r.cap_bytes * 9 / 10, "{r:?}");
        assert_eq!((r.pinned_evicted, r.pinned_keys), (0, 4));
        assert_eq!(r.touched_survived, r.touched_keys);
        assert_eq!(r.survivors + r.evictions, r.inserts);
        let last = &r.survivors_by_decile[9];
        assert_eq!(last.survived, last.inserted, "the newest tenth is all live");
        let first = &r.survivors_by_decile[0];
        assert_eq!(
            first.survived,
            first.pinned + first.touched,
            "only pinned and re-read keys stay from the oldest tenth"
        );
    }
}
