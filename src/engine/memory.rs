//! What the process uses and what the machine has left, read from `/proc`.
//! On systems without `/proc` every reading is `None` and the engine plans
//! without it.

use std::fs;

fn status_kib(field: &str) -> Option<u64> {
    let text = fs::read_to_string("/proc/self/status").ok()?;
    kib_field(&text, field)
}

fn kib_field(text: &str, field: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(field))?;
    let value = line[field.len()..].trim().trim_end_matches("kB").trim();
    value.parse::<u64>().ok().map(|kib| kib * 1024)
}

/// The peak resident set size of this process so far, in bytes.
pub fn peak_rss_bytes() -> Option<u64> {
    status_kib("VmHWM:")
}

/// The resident set size of this process now, in bytes.
pub fn current_rss_bytes() -> Option<u64> {
    status_kib("VmRSS:")
}

/// Memory the kernel says can still be given out without swapping, in bytes.
pub fn available_bytes() -> Option<u64> {
    let text = fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&text, "MemAvailable:")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_kib_fields() {
        let text = "Name:\treach\nVmHWM:\t  123 kB\nVmRSS:\t 45 kB\n";
        assert_eq!(kib_field(text, "VmHWM:"), Some(123 * 1024));
        assert_eq!(kib_field(text, "VmRSS:"), Some(45 * 1024));
        assert_eq!(kib_field(text, "VmSwap:"), None);
    }
}
