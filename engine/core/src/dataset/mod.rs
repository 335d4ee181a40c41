//! Knowledge-graph datasets: vocabularies, triples as `u32` ids, reversed triples, and the
//! `(head, relation) -> tails` index the model trains and filters on.

mod index;
mod tsv;

pub use index::PairIndex;

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

/// One fact `(head, relation, tail)` as ids.
pub type Triple = [u32; 3];

/// Whether a query asks for the tail of `(h, r, ?)` or, via the reverse relation, the head.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Tail,
    Head,
}

/// How reversed triples `(t, r⁻¹, h)` are added.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InverseMode {
    /// `r⁻¹ = r + n_rel`, named `"{r}_reverse"` (standard; the WN18RR setting).
    NewRelation,
    /// `r⁻¹ = r` (the reference FB15k-237 setting).
    SameRelation,
}

impl InverseMode {
    /// Relations the model has embeddings for.
    pub fn model_relations(self, n_rel: usize) -> usize {
        match self {
            InverseMode::NewRelation => 2 * n_rel,
            InverseMode::SameRelation => n_rel,
        }
    }
    /// The relation id used for the reversed direction of base relation `r`.
    pub fn reverse(self, r: u32, n_rel: usize) -> u32 {
        match self {
            InverseMode::NewRelation => r + n_rel as u32,
            InverseMode::SameRelation => r,
        }
    }
}

/// Appends `(t, r⁻¹, h)` for every `(h, r, t)`.
pub fn with_reverse(triples: &[Triple], n_rel: usize, mode: InverseMode) -> Vec<Triple> {
    let mut out = Vec::with_capacity(triples.len() * 2);
    out.extend_from_slice(triples);
    out.extend(
        triples
            .iter()
            .map(|&[h, r, t]| [t, mode.reverse(r, n_rel), h]),
    );
    out
}

/// A knowledge graph split into train/valid/test, with names for every id.
#[derive(Clone, Debug)]
pub struct Dataset {
    /// Entity names; the id of an entity is its index. Sorted when loaded from files.
    pub entities: Vec<String>,
    /// Base relation names (without reverses); sorted when loaded from files.
    pub relations: Vec<String>,
    pub train: Vec<Triple>,
    pub valid: Vec<Triple>,
    pub test: Vec<Triple>,
}

impl Dataset {
    /// Loads `train.txt`, `valid.txt`, `test.txt` (`head\trelation\ttail` per line) from `dir`.
    /// Vocabularies cover all three splits, in sorted (byte-wise) order, as the reference code.
    pub fn from_dir(dir: impl AsRef<Path>) -> Result<Dataset> {
        let dir = dir.as_ref();
        let splits =
            ["train.txt", "valid.txt", "test.txt"].map(|f| tsv::read_named_triples(&dir.join(f)));
        let [train, valid, test] = splits;
        let (train, valid, test) = (train?, valid?, test?);
        let mut ents: Vec<&str> = Vec::new();
        let mut rels: Vec<&str> = Vec::new();
        for t in train.iter().chain(&valid).chain(&test) {
            ents.push(&t[0]);
            ents.push(&t[2]);
            rels.push(&t[1]);
        }
        ents.sort_unstable();
        ents.dedup();
        rels.sort_unstable();
        rels.dedup();
        let ent_ids: HashMap<&str, u32> = ents
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, i as u32))
            .collect();
        let rel_ids: HashMap<&str, u32> = rels
            .iter()
            .enumerate()
            .map(|(i, &s)| (s, i as u32))
            .collect();
        let ids = |v: &[[String; 3]]| -> Vec<Triple> {
            v.iter()
                .map(|[h, r, t]| {
                    [
                        ent_ids[h.as_str()],
                        rel_ids[r.as_str()],
                        ent_ids[t.as_str()],
                    ]
                })
                .collect()
        };
        let ds = Dataset {
            train: ids(&train),
            valid: ids(&valid),
            test: ids(&test),
            entities: ents.iter().map(|s| s.to_string()).collect(),
            relations: rels.iter().map(|s| s.to_string()).collect(),
        };
        ds.validate()?;
        Ok(ds)
    }

    /// Builds a dataset from flat id arrays `[h0, r0, t0, h1, r1, t1, ...]`. Names default to the
    /// decimal ids; replace them with [`Dataset::with_names`].
    pub fn from_arrays(
        n_ent: usize,
        n_rel: usize,
        train: &[u32],
        valid: &[u32],
        test: &[u32],
    ) -> Result<Dataset> {
        let split = |name: &str, v: &[u32]| -> Result<Vec<Triple>> {
            if !v.len().is_multiple_of(3) {
                return Err(Error::Dataset(format!(
                    "{name}: length {} is not a multiple of 3",
                    v.len()
                )));
            }
            Ok(v.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect())
        };
        let ds = Dataset {
            entities: (0..n_ent).map(|i| i.to_string()).collect(),
            relations: (0..n_rel).map(|i| i.to_string()).collect(),
            train: split("train", train)?,
            valid: split("valid", valid)?,
            test: split("test", test)?,
        };
        ds.validate()?;
        Ok(ds)
    }

    /// Replaces the default names; lengths must match the entity and relation counts.
    pub fn with_names(mut self, entities: Vec<String>, relations: Vec<String>) -> Result<Dataset> {
        if entities.len() != self.entities.len() || relations.len() != self.relations.len() {
            return Err(Error::Dataset(format!(
                "names: got {} entities / {} relations, expected {} / {}",
                entities.len(),
                relations.len(),
                self.entities.len(),
                self.relations.len()
            )));
        }
        self.entities = entities;
        self.relations = relations;
        Ok(self)
    }

    pub fn n_entities(&self) -> usize {
        self.entities.len()
    }
    pub fn n_relations(&self) -> usize {
        self.relations.len()
    }

    /// Checks ids are in range and there is something to train on.
    pub fn validate(&self) -> Result<()> {
        let (ne, nr) = (self.entities.len() as u64, self.relations.len() as u64);
        if ne == 0 || nr == 0 || self.train.is_empty() {
            return Err(Error::Dataset(
                "needs at least one entity, one relation and one training triple".into(),
            ));
        }
        if ne > u32::MAX as u64 / 2 || nr > u32::MAX as u64 / 2 {
            return Err(Error::Dataset(
                "too many entities or relations for u32 ids".into(),
            ));
        }
        for (name, split) in [
            ("train", &self.train),
            ("valid", &self.valid),
            ("test", &self.test),
        ] {
            for (i, &[h, r, t]) in split.iter().enumerate() {
                if h as u64 >= ne || t as u64 >= ne || r as u64 >= nr {
                    return Err(Error::Dataset(format!(
                        "{name} triple {i} ({h}, {r}, {t}) is out of range ({ne} entities, {nr} relations)"
                    )));
                }
            }
        }
        Ok(())
    }

    /// Training examples: unique `(h, r)` pairs of train plus reversed train, with their tails.
    pub fn train_index(&self, mode: InverseMode) -> PairIndex {
        PairIndex::build(&with_reverse(&self.train, self.n_relations(), mode))
    }

    /// Filter index over train + valid + test, all with reverses (for filtered ranking).
    pub fn filter_index(&self, mode: InverseMode) -> PairIndex {
        let mut all = self.train.clone();
        all.extend_from_slice(&self.valid);
        all.extend_from_slice(&self.test);
        PairIndex::build(&with_reverse(&all, self.n_relations(), mode))
    }

    /// Names of the model's relations: base names, then `"{name}_reverse"` in `NewRelation` mode.
    pub fn model_relation_names(&self, mode: InverseMode) -> Vec<String> {
        let mut v = self.relations.clone();
        if mode == InverseMode::NewRelation {
            v.extend(self.relations.iter().map(|r| format!("{r}_reverse")));
        }
        v
    }
}
