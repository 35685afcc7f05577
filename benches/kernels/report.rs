//! One measured workload as a line of the run's log or of the closing Markdown table.

use crate::measure::Measured;

pub struct Row {
    pub name: String,
    pub threads: &'static str,
    pub m: Measured,
    pub target: f64,
}

impl Row {
    fn ratio_min(&self) -> f64 {
        self.m.op_min.as_secs_f64() / self.m.bound_min.as_secs_f64()
    }
    /// The row as a line of the run's log, or of the Markdown table.
    pub fn line(&self, markdown: bool) -> String {
        let m = &self.m;
        let (ms, gbs) = (
            m.op_med.as_secs_f64() * 1e3,
            m.bytes as f64 / m.op_med.as_secs_f64() / 1e9,
        );
        let bound = m.bound_med.as_secs_f64() * 1e3;
        let (name, th, ratio, pairs, target) = (
            &self.name,
            self.threads,
            self.ratio_min(),
            m.pair_ratio_med,
            self.target(),
        );
        if markdown {
            format!("| {name} | {th} | {ms:.2} | {gbs:.1} | {bound:.2} | {ratio:.2} | {pairs:.2} | {target} |")
        } else {
            format!(
                "{name:<36} threads {th:>3}: {ms:>8.3} ms {gbs:>6.2} GB/s  bound {bound:>7.3} ms  \
                 ratio min/min {ratio:>5.2}  median of pairs {pairs:>5.2}  target {target}"
            )
        }
    }

    fn target(&self) -> String {
        if self.target.is_nan() {
            "report".to_string()
        } else {
            format!("≤ {}", self.target)
        }
    }
}
