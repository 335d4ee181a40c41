//! Command-line flags shared by the examples (included with `#[path]`, as `timing.rs` is).

/// The value after flag `name`, if given.
pub fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// The number after flag `name`, or `default`.
#[allow(dead_code)] // not every example takes a number
pub fn num(name: &str, default: usize) -> usize {
    arg(name).map_or(default, |v| v.parse().expect("a number"))
}
