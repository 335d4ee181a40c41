//! The engine's module layering (see the table in src/lib.rs): every `crate::<module>` path in a
//! module's non-test code names a module of its own layer or one below, and no modules import
//! each other in a cycle. A serving build (`--no-default-features`) then never needs training.

#[path = "../../module_graph.rs"]
mod shared;

use shared::{crate_references, non_test_code};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Lowest first; must match the table in src/lib.rs.
const LAYERS: [&[&str]; 7] = [
    &["error", "real", "rng"],
    &["dataset", "config", "params", "rows", "rule_walk"],
    &["kernels", "linalg", "int8_rows", "int8_scan"],
    &[
        "candidate_mask",
        "exact_rank",
        "exact_top_k",
        "scoring",
        "eval",
        "memo",
        "model",
        "evaluate",
        "suggest",
        "warm_start",
        "fold_in",
    ],
    &["checkpoint"],
    &[
        "adam",
        "column_sampler",
        "early_stopping",
        "lr_schedule",
        "net",
        "sampled_steps",
        "step_engine",
        "train",
        "weight_average",
    ],
    &["graph_sizing", "presets"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    shared::module_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

#[test]
fn every_module_has_a_layer() {
    for module in module_graph().keys() {
        assert!(
            layer_of(module).is_some(),
            "module `{module}` is in no layer: add it to src/lib.rs's table and LAYERS here"
        );
    }
}

#[test]
fn modules_use_only_their_layer_and_those_below() {
    for (module, refs) in module_graph() {
        let own = layer_of(&module).unwrap_or(usize::MAX);
        for target in refs {
            let theirs = layer_of(&target)
                .unwrap_or_else(|| panic!("`{module}` uses `crate::{target}`, in no layer"));
            assert!(
                theirs <= own,
                "`{module}` (layer {own}) uses `{target}` (layer {theirs}, above it)"
            );
        }
    }
}

#[test]
fn no_import_cycles() {
    shared::assert_no_cycles(&module_graph());
}

#[test]
fn the_checker_sees_references() {
    let refs = crate_references("use crate::{a::B, b};\nfn f() { crate::c::d(); }");
    assert_eq!(
        refs,
        ["a", "b", "c"].iter().map(|s| s.to_string()).collect()
    );
    assert_eq!(
        non_test_code("x // crate::z\n#[cfg(test)]\nmod tests { crate::y }"),
        "x "
    );
}
