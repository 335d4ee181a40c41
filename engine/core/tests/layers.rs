//! The engine's module layering (see the table in src/lib.rs): every `crate::<module>` path in a
//! module's non-test code names a module of its own layer or one below, and no modules import
//! each other in a cycle. A serving build (`--no-default-features`) then never needs training.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Lowest first; must match the table in src/lib.rs.
const LAYERS: [&[&str]; 7] = [
    &["error", "real", "rng"],
    &["dataset", "config", "params"],
    &["kernels", "linalg"],
    &[
        "candidate_mask",
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

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code before a file's `#[cfg(test)]` module (tests may use anything), without comments
/// (docs may mention any module).
fn non_test_code(text: &str) -> String {
    let code = text.find("#[cfg(test)]").map_or(text, |i| &text[..i]);
    code.lines()
        .map(|line| line.find("//").map_or(line, |i| &line[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Modules named by `crate::<name>` paths, including `use crate::{a, b}` groups.
fn crate_references(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name = ident(item.trim());
                if !name.is_empty() {
                    found.insert(name);
                }
            }
        } else {
            found.insert(ident(rest));
        }
    }
    found
}

/// Each top-level module's references to other top-level modules (lib.rs and bin/ excluded).
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_string_lossy().trim_end_matches(".rs").to_string();
        if module == "lib" || module == "bin" {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let refs = graph.entry(module.clone()).or_default();
        for target in crate_references(&non_test_code(&text)) {
            // `crate::ENGINE_VERSION` and other root items are not modules.
            if target != module && target.chars().next().is_some_and(|c| c.is_lowercase()) {
                refs.insert(target);
            }
        }
    }
    graph
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
    let graph = module_graph();
    // Depth-first search; `path` is the current chain of modules.
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if let Some(at) = path.iter().position(|m| m == module) {
            panic!("import cycle: {} -> {module}", path[at..].join(" -> "));
        }
        if done.contains(module) {
            return;
        }
        path.push(module.to_string());
        for next in graph.get(module).into_iter().flatten() {
            visit(next, graph, path, done);
        }
        path.pop();
        done.insert(module.to_string());
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        visit(module, &graph, &mut Vec::new(), &mut done);
    }
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
