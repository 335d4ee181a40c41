//! Loading triple files, vocabularies, reversed triples and the (h, r) -> tails index.

mod common;

use neptune_core::dataset::{with_reverse, PairIndex};
use neptune_core::{Dataset, Error, InverseMode};

fn write_split(dir: &std::path::Path, train: &str, valid: &str, test: &str) {
    std::fs::write(dir.join("train.txt"), train).unwrap();
    std::fs::write(dir.join("valid.txt"), valid).unwrap();
    std::fs::write(dir.join("test.txt"), test).unwrap();
}

#[test]
fn loads_files_with_sorted_vocabularies() {
    let dir = common::temp_dir("ds-ok");
    write_split(&dir, "b\tr2\ta\nc\tr1\tb\n\n", "a\tr1\td\n", "d\tr2\tc\n");
    let d = Dataset::from_dir(&dir).unwrap();
    assert_eq!(d.entities, ["a", "b", "c", "d"]);
    assert_eq!(d.relations, ["r1", "r2"]);
    assert_eq!(d.train, vec![[1, 1, 0], [2, 0, 1]]);
    assert_eq!(d.valid, vec![[0, 0, 3]]);
    assert_eq!(d.test, vec![[3, 1, 2]]);
    assert_eq!(
        d.model_relation_names(InverseMode::NewRelation),
        ["r1", "r2", "r1_reverse", "r2_reverse"]
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_lines_name_file_and_line() {
    let dir = common::temp_dir("ds-bad");
    write_split(&dir, "a\tr\tb\na\tr\n", "", "");
    match Dataset::from_dir(&dir) {
        Err(e @ Error::Parse { line: 2, .. }) => {
            let s = e.to_string();
            assert!(
                s.contains("train.txt:2") && s.contains("3 tab-separated fields"),
                "{s}"
            );
        }
        other => panic!("expected a parse error on line 2, got {other:?}"),
    }
    write_split(&dir, "a\t\tb\n", "", "");
    assert!(matches!(
        Dataset::from_dir(&dir),
        Err(Error::Parse { line: 1, .. })
    ));
    std::fs::remove_file(dir.join("test.txt")).unwrap();
    write_split(&dir, "a\tr\tb\n", "", "");
    std::fs::remove_file(dir.join("valid.txt")).unwrap();
    match Dataset::from_dir(&dir) {
        Err(Error::Io { path, .. }) => assert!(path.ends_with("valid.txt")),
        other => panic!("expected an I/O error for valid.txt, got {other:?}"),
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn from_arrays_validates() {
    assert!(Dataset::from_arrays(3, 1, &[0, 0, 1, 1, 0, 2], &[], &[]).is_ok());
    assert!(matches!(
        Dataset::from_arrays(3, 1, &[0, 0, 3], &[], &[]),
        Err(Error::Dataset(_))
    ));
    assert!(matches!(
        Dataset::from_arrays(3, 1, &[0, 1, 2], &[], &[]),
        Err(Error::Dataset(_))
    ));
    assert!(matches!(
        Dataset::from_arrays(3, 1, &[0, 0], &[], &[]),
        Err(Error::Dataset(_))
    ));
    assert!(matches!(
        Dataset::from_arrays(3, 1, &[], &[], &[]),
        Err(Error::Dataset(_))
    ));
    let d = Dataset::from_arrays(2, 1, &[0, 0, 1], &[], &[]).unwrap();
    assert!(d
        .clone()
        .with_names(vec!["x".into()], vec!["r".into()])
        .is_err());
    assert_eq!(
        d.with_names(vec!["x".into(), "y".into()], vec!["r".into()])
            .unwrap()
            .entities[1],
        "y"
    );
}

#[test]
fn reverse_modes_and_pair_index() {
    let triples = [[0, 0, 1], [0, 0, 2], [2, 1, 0], [0, 0, 1]];
    let new = with_reverse(&triples, 2, InverseMode::NewRelation);
    assert_eq!(&new[4..], &[[1, 2, 0], [2, 2, 0], [0, 3, 2], [1, 2, 0]]);
    let same = with_reverse(&triples, 2, InverseMode::SameRelation);
    assert_eq!(same[6], [0, 1, 2]);
    let idx = PairIndex::build(&new);
    assert_eq!(idx.pairs, vec![(0, 0), (0, 3), (1, 2), (2, 1), (2, 2)]);
    assert_eq!(idx.lookup(0, 0), &[1, 2]);
    assert_eq!(idx.lookup(1, 2), &[0]);
    assert!(idx.lookup(1, 0).is_empty());
    // Shared ids merge both directions into one pair: (0, r1) gets tail 2 from the reverse.
    let idx2 = PairIndex::build(&same);
    assert_eq!(idx2.lookup(0, 1), &[2]);
    assert_eq!(idx2.lookup(2, 0), &[0]);
}
