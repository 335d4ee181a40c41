//! A crate's module graph from its sources, for the engine crates' structure tests
//! (`#[path]`-included by core/tests/layers.rs and gpu/tests/modules.rs): each top-level module
//! of `src/` and the top-level modules its non-test code names as `crate::<module>`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
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
pub fn non_test_code(text: &str) -> String {
    let code = text.find("#[cfg(test)]").map_or(text, |i| &text[..i]);
    code.lines()
        .map(|line| line.find("//").map_or(line, |i| &line[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Modules named by `crate::<name>` paths, including `use crate::{a, b}` groups.
pub fn crate_references(code: &str) -> BTreeSet<String> {
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
pub fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let src = src.to_path_buf();
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

/// Panics naming the first import cycle of `graph`, if any.
pub fn assert_no_cycles(graph: &BTreeMap<String, BTreeSet<String>>) {
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
        visit(module, graph, &mut Vec::new(), &mut done);
    }
}
