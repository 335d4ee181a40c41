//! Reading `head\trelation\ttail` files.

use crate::error::{Error, Result};
use std::path::Path;

/// Reads a triple file; blank lines are skipped, anything else must be three non-empty
/// tab-separated fields. A trailing `\r` is tolerated.
pub(super) fn read_named_triples(path: &Path) -> Result<Vec<[String; 3]>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let parse_err = |message: String| Error::Parse {
            path: path.to_path_buf(),
            line: i + 1,
            message,
        };
        let fields: Vec<&str> = line.split('\t').collect();
        if fields.len() != 3 {
            return Err(parse_err(format!(
                "expected 3 tab-separated fields (head, relation, tail), found {}",
                fields.len()
            )));
        }
        if let Some(k) = fields.iter().position(|f| f.trim().is_empty()) {
            return Err(parse_err(format!(
                "field {} ({}) is empty",
                k + 1,
                ["head", "relation", "tail"][k]
            )));
        }
        out.push([
            fields[0].to_string(),
            fields[1].to_string(),
            fields[2].to_string(),
        ]);
    }
    Ok(out)
}
