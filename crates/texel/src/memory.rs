//! The process's resident memory as the OS reports it (Linux: `/proc/self/status`), for
//! `tune bench` and the memory tests: the peak (`VmHWM`), the current size (`VmRSS`), and a
//! reset of the peak (`/proc/self/clear_refs`), so that one process can measure several steps.
//! Elsewhere every function returns `None` / `false`.
//!
//! ```
//! if let Some(now) = texel::memory::rss() {
//!     assert!(texel::memory::peak_rss().unwrap() >= now);
//! }
//! ```

/// A field of `/proc/self/status` in bytes (the file gives kB).
fn status(field: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line[field.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

/// The peak resident set size of this process so far (or since [`reset_peak`]), in bytes.
pub fn peak_rss() -> Option<u64> {
    status("VmHWM:")
}

/// The resident set size of this process now, in bytes.
pub fn rss() -> Option<u64> {
    status("VmRSS:")
}

/// Resets the peak ([`peak_rss`]) to the current size; `false` if the OS does not allow it.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}
