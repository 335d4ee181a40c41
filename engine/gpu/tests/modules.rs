//! The GPU crate's modules import each other in no cycle (a device holds its compiled kernels
//! without depending on the code that dispatches them).

#[path = "../../module_graph.rs"]
mod shared;

use std::path::Path;

#[test]
fn no_import_cycles() {
    let graph = shared::module_graph(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(graph.contains_key("device") && graph.contains_key("kernel"));
    assert!(
        graph["kernel"].contains("device"),
        "the checker sees references"
    );
    shared::assert_no_cycles(&graph);
}
