//! A generated graph with known structure, and temporary directories, shared by tests.

#![allow(dead_code)]

use neptune_core::Dataset;
use std::path::PathBuf;

/// `clusters` clusters of `size` entities; relation r links every entity of cluster c to every
/// entity of cluster `(c * (r + 1) + r + 1) mod clusters`. Held-out triples are predictable
/// from the rest: a tail belongs to the same cluster as the known tails of its query.
/// Every 20th triple goes to valid, every 20th (offset 10) to test.
pub fn cluster_graph(clusters: u32, size: u32, relations: u32) -> Dataset {
    let (mut train, mut valid, mut test) = (vec![], vec![], vec![]);
    let mut k = 0usize;
    for r in 0..relations {
        for c in 0..clusters {
            let c2 = (c * (r + 1) + r + 1) % clusters;
            for i in 0..size {
                for j in 0..size {
                    let t = [c * size + i, r, c2 * size + j];
                    match k % 20 {
                        0 => valid.extend(t),
                        10 => test.extend(t),
                        _ => train.extend(t),
                    }
                    k += 1;
                }
            }
        }
    }
    Dataset::from_arrays(
        (clusters * size) as usize,
        relations as usize,
        &train,
        &valid,
        &test,
    )
    .unwrap()
}

/// A fresh, empty directory under the system temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("neptune-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}
