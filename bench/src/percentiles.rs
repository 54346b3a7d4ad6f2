//! Latency samples → p50 / p95 / p99 (nearest-rank), in microseconds.

use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub n: usize,
    pub p50_us: f64,
    pub p95_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

pub fn summarize(samples_ns: &mut [u64]) -> Summary {
    samples_ns.sort_unstable();
    let n = samples_ns.len();
    let at = |p: f64| -> f64 {
        if n == 0 {
            return f64::NAN;
        }
        let rank = ((p * n as f64).ceil() as usize).clamp(1, n);
        samples_ns[rank - 1] as f64 / 1000.0
    };
    Summary { n, p50_us: at(0.50), p95_us: at(0.95), p99_us: at(0.99), max_us: at(1.0) }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn nearest_rank() {
        let mut v: Vec<u64> = (1..=100).map(|x| x * 1000).collect();
        let s = summarize(&mut v);
        assert_eq!((s.n, s.p50_us, s.p95_us, s.p99_us, s.max_us), (100, 50.0, 95.0, 99.0, 100.0));
    }
}
