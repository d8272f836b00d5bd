//! A platform's log of the deployed probe (`platform verify --events FILE`): what `kubectl logs`
//! printed of the probe's standard output. The probe prints one JSON event per line (`listening`
//! when it starts, `signal` for each signal it receives, `alive` every second after a SIGTERM it
//! ignores, `exit`); the platform may put a prefix before each line (`kubectl logs --timestamps`,
//! `--prefix`), so an event is read from the first `{` of a line, and other lines (the platform's
//! own, another container's) are skipped.
//!
//! A probe killed by SIGKILL writes no last line: that the log runs to the container's end is the
//! word of whoever captured it, given by a line [`END_MARKER`] appended once the capture ended
//! with the container (`kubectl logs -f … > probe.log && echo kcontract-log-end >> probe.log`,
//! docs/deploying.md). Without it a log can only show what happened, never that nothing more did.

use kcontract_probe::facts::Event;
use serde::Serialize;

/// The line that says the log was captured to the container's end.
pub const END_MARKER: &str = "kcontract-log-end";

/// A platform log, read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlatformLog {
    /// The file, as given.
    pub file: String,
    /// How many lines it has.
    pub lines: usize,
    /// The probe's events, in order, with their line numbers (1-based).
    pub events: Vec<(usize, Event)>,
    /// Whether it has the [`END_MARKER`] line after the last event.
    pub ended: bool,
}

impl PlatformLog {
    /// Reads `text`, the log in the file `file`.
    pub fn parse(file: &str, text: &str) -> PlatformLog {
        let mut events = Vec::new();
        let mut ended = false;
        let mut lines = 0;
        for (i, line) in text.lines().enumerate() {
            lines = i + 1;
            let line = line.trim_end_matches('\r');
            if line.trim() == END_MARKER {
                ended = true;
                continue;
            }
            let Some(start) = line.find('{') else {
                continue;
            };
            if let Ok(e) = serde_json::from_str::<Event>(&line[start..]) {
                // An event after the marker: the marker was not the end.
                ended = false;
                events.push((i + 1, e));
            }
        }
        PlatformLog {
            file: file.to_owned(),
            lines,
            events,
            ended,
        }
    }

    /// How many times the probe started in this log (its first event each time).
    pub fn starts(&self) -> usize {
        self.events.iter().filter(|(_, e)| e.is_start()).count()
    }

    /// The first signal the probe received: its name, when (ms since start) and what it did.
    pub fn first_signal(&self) -> Option<(&str, u64, &str)> {
        self.events.iter().find_map(|(_, e)| match e {
            Event::Signal { signal, ms, action } => Some((signal.as_str(), *ms, action.as_str())),
            _ => None,
        })
    }

    /// The last time the probe was seen alive (ms since start): its last event's.
    pub fn last_seen(&self) -> Option<u64> {
        self.events.iter().rev().find_map(|(_, e)| match e {
            Event::Signal { ms, .. } | Event::Alive { ms } | Event::Exit { ms, .. } => Some(*ms),
            _ => None,
        })
    }

    /// Whether the probe said it exits.
    pub fn exited(&self) -> bool {
        self.events
            .iter()
            .any(|(_, e)| matches!(e, Event::Exit { .. }))
    }

    /// The lines of a log holding `events`, as the probe prints them, and the end marker when
    /// `ended` (what a test or the guide's local run writes).
    pub fn render(events: &[Event], ended: bool) -> String {
        let mut out = String::new();
        for e in events {
            if let Ok(line) = serde_json::to_string(e) {
                out.push_str(&line);
                out.push('\n');
            }
        }
        if ended {
            out.push_str(END_MARKER);
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixed_lines_other_lines_and_the_marker() {
        let text = "2026-12-01T10:00:00Z {\"event\":\"listening\",\"port\":8080,\"source\":\"PORT\"}\n\
                    [pod/p/user-container] {\"event\":\"signal\",\"signal\":\"SIGTERM\",\"ms\":5000,\"action\":\"ignore\"}\n\
                    some other line {not json\n\
                    {\"event\":\"alive\",\"ms\":6000}\n\
                    kcontract-log-end\n";
        let log = PlatformLog::parse("p.log", text);
        assert_eq!(log.lines, 5);
        assert_eq!(log.events.len(), 3);
        assert_eq!(log.starts(), 1);
        assert_eq!(log.first_signal(), Some(("SIGTERM", 5000, "ignore")));
        assert_eq!(log.last_seen(), Some(6000));
        assert!(log.ended && !log.exited());
        // An event after the marker: not the end.
        let later = PlatformLog::parse(
            "p.log",
            &format!("{text}{{\"event\":\"alive\",\"ms\":7000}}\n"),
        );
        assert!(!later.ended);
        let events: Vec<Event> = log.events.iter().map(|(_, e)| e.clone()).collect();
        assert_eq!(
            PlatformLog::parse("p.log", &PlatformLog::render(&events, true))
                .events
                .len(),
            3
        );
    }
}
