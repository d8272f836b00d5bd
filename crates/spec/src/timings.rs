//! Where the time goes: `kcontract build --timings` (Zola-style step timings).

use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Named steps with their accumulated wall time, in the order first seen.
#[derive(Debug, Default, Clone)]
pub struct Timings {
    steps: Vec<(&'static str, Duration)>,
    /// Parts of a step, measured as thread time inside it; shown indented, not added to the total.
    details: Vec<(&'static str, Duration)>,
    /// One line each after the table: how a step went when that explains its time (a cache).
    notes: Vec<String>,
}

impl Timings {
    /// Add `d` to `step` (a new step goes last).
    pub fn add(&mut self, step: &'static str, d: Duration) {
        match self.steps.iter_mut().find(|(s, _)| *s == step) {
            Some((_, total)) => *total += d,
            None => self.steps.push((step, d)),
        }
    }

    /// Run `f`, adding its wall time to `step`.
    pub fn time<T>(&mut self, step: &'static str, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.add(step, start.elapsed());
        out
    }

    /// Add `d` to the part `part` of the step under way.
    pub fn add_detail(&mut self, part: &'static str, d: Duration) {
        match self.details.iter_mut().find(|(s, _)| *s == part) {
            Some((_, total)) => *total += d,
            None => self.details.push((part, d)),
        }
    }

    /// Run `f`, adding its wall time to the part `part` of the step under way.
    pub fn detail<T>(&mut self, part: &'static str, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.add_detail(part, start.elapsed());
        out
    }

    /// A line to print after the table.
    pub fn note(&mut self, line: String) {
        self.notes.push(line);
    }

    /// Lines to print after the table.
    pub fn extend_notes(&mut self, lines: impl IntoIterator<Item = String>) {
        self.notes.extend(lines);
    }

    /// `other`'s steps added to these, its parts and notes kept.
    pub fn extend(&mut self, other: &Timings) {
        for (s, d) in &other.steps {
            self.add(s, *d);
        }
        self.details.extend(other.details.iter().copied());
        self.notes.extend(other.notes.iter().cloned());
    }

    /// A small table: step, milliseconds, share of the total.
    pub fn report(&self) -> String {
        let total: Duration = self.steps.iter().map(|(_, d)| *d).sum();
        let mut out = String::from("timings:\n");
        for (s, d) in &self.steps {
            let pct = if total.is_zero() {
                0.0
            } else {
                100.0 * d.as_secs_f64() / total.as_secs_f64()
            };
            let _ = writeln!(
                out,
                "  {s:<14} {:>9.1} ms  {pct:>5.1}%",
                d.as_secs_f64() * 1e3
            );
        }
        if !self.details.is_empty() {
            out.push_str("  steps of render+write:\n");
        }
        for (s, d) in &self.details {
            let _ = writeln!(out, "    · {s:<12} {:>7.1} ms", d.as_secs_f64() * 1e3);
        }
        let _ = writeln!(
            out,
            "  {:<14} {:>9.1} ms",
            "total",
            total.as_secs_f64() * 1e3
        );
        for n in &self.notes {
            let _ = writeln!(out, "  {n}");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_lists_steps_in_order_then_parts_and_the_total_of_the_steps() {
        let mut t = Timings::default();
        t.add("read", Duration::from_millis(30));
        t.add("parse", Duration::from_millis(10));
        t.add("read", Duration::from_millis(10));
        t.add_detail("chapters", Duration::from_millis(300));
        t.add_detail("chapters", Duration::from_millis(200));
        let r = t.report();
        let lines: Vec<&str> = r.lines().collect();
        assert_eq!(lines[0], "timings:");
        assert!(
            lines[1].starts_with("  read ")
                && lines[1].contains(" 40.0 ms")
                && lines[1].ends_with("80.0%"),
            "{r}"
        );
        assert!(
            lines[2].starts_with("  parse ")
                && lines[2].contains(" 10.0 ms")
                && lines[2].ends_with("20.0%"),
            "{r}"
        );
        assert!(lines[3].contains("steps of render+write"), "{r}");
        assert!(
            lines[4].contains("· chapters") && lines[4].contains("500.0 ms"),
            "{r}"
        );
        // Parts are not steps: the total is the steps' 50 ms.
        assert!(
            lines[5].starts_with("  total") && lines[5].contains(" 50.0 ms"),
            "{r}"
        );
    }
}
