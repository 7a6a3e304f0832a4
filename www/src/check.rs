//! `?check=SEED`: instead of the app, the page plays one `kubeglass check` run (the small size, the test
//! suite's faults) in WebAssembly and shows its outcome in `<pre id="check">`, with the trace hash in
//! `data-trace-hash`. The browser suite compares that hash with the native `kubeglass check --hash`: the
//! same seed must give the same trace in both.

use kubeglass::check::{self, Faults, Size};

/// The seed a page query asks to check (`?check=42`), if it asks.
pub fn requested(query: &str) -> Option<u64> {
    query.trim_start_matches('?').split('&').find_map(|kv| kv.strip_prefix("check=")).and_then(|v| v.parse().ok())
}

/// Runs the seed and returns the element's HTML.
pub fn run(seed: u64) -> String {
    let o = check::run_seed(seed, Size::Small, Faults::ALL);
    let verdict = o.failure.as_ref().map_or_else(|| "passed".to_string(), check::Failure::name);
    format!(
        "<pre id=\"check\" data-seed=\"{seed}\" data-trace-hash=\"{:016x}\" data-deliveries=\"{}\" \
         data-verdict=\"{verdict}\">seed {seed}: {verdict}, {} deliveries, trace {:016x}</pre>",
        o.trace_hash, o.deliveries, o.deliveries, o.trace_hash
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_names_the_seed() {
        assert_eq!(requested("?check=42"), Some(42));
        assert_eq!(requested("?x=1&check=7"), Some(7));
        assert_eq!(requested("?check=abc"), None);
        assert_eq!(requested(""), None);
    }
}
