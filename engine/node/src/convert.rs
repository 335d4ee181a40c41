//! Conversions between core types and JS objects.

use napi_derive::napi;
use neptune_core::{Dataset, Metrics, RankStats};

/// Which side of a triple a query predicts.
#[napi(string_enum = "lowercase")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// `(h, r, ?)`
    Tail,
    /// `(?, r, t)`
    Head,
}

#[napi(object)]
pub struct RankStatsJs {
    pub count: u32,
    pub mrr: f64,
    pub mr: f64,
    pub hits1: f64,
    pub hits3: f64,
    pub hits10: f64,
}

#[napi(object)]
pub struct RelationMetricsJs {
    pub relation: String,
    pub direction: Direction,
    pub stats: RankStatsJs,
}

#[napi(object)]
pub struct MetricsJs {
    pub overall: RankStatsJs,
    pub tail: RankStatsJs,
    pub head: RankStatsJs,
    pub per_relation: Vec<RelationMetricsJs>,
}

fn stats(s: &RankStats) -> RankStatsJs {
    RankStatsJs {
        count: s.count as u32,
        mrr: s.mrr,
        mr: s.mr,
        hits1: s.hits1,
        hits3: s.hits3,
        hits10: s.hits10,
    }
}

/// Relation ids in metrics are base relation ids; JS sees names.
pub fn metrics(m: &Metrics, relation_names: &[String]) -> MetricsJs {
    MetricsJs {
        overall: stats(&m.overall),
        tail: stats(&m.tail),
        head: stats(&m.head),
        per_relation: m
            .per_relation
            .iter()
            .map(|r| RelationMetricsJs {
                relation: relation_names
                    .get(r.relation as usize)
                    .cloned()
                    .unwrap_or_else(|| r.relation.to_string()),
                direction: match r.direction {
                    neptune_core::Direction::Tail => Direction::Tail,
                    neptune_core::Direction::Head => Direction::Head,
                },
                stats: stats(&r.stats),
            })
            .collect(),
    }
}

/// A dataset handed over from JS: vocabularies plus flat `[h, r, t, h, r, t, ...]` id arrays.
#[napi(object)]
pub struct DatasetArrays {
    pub entities: Vec<String>,
    pub relations: Vec<String>,
    pub train: napi::bindgen_prelude::Uint32Array,
    pub valid: napi::bindgen_prelude::Uint32Array,
    pub test: napi::bindgen_prelude::Uint32Array,
}

/// Where the training data comes from: a folder of train/valid/test.txt, or arrays.
pub enum DatasetSource {
    Dir(String),
    Arrays {
        entities: Vec<String>,
        relations: Vec<String>,
        train: Vec<u32>,
        valid: Vec<u32>,
        test: Vec<u32>,
    },
}

impl DatasetSource {
    /// Copies the id arrays out of JS memory: the task runs after the call returns.
    pub fn new(dataset: napi::Either<String, DatasetArrays>) -> Self {
        match dataset {
            napi::Either::A(dir) => DatasetSource::Dir(dir),
            napi::Either::B(a) => DatasetSource::Arrays {
                entities: a.entities,
                relations: a.relations,
                train: a.train.to_vec(),
                valid: a.valid.to_vec(),
                test: a.test.to_vec(),
            },
        }
    }

    pub fn load(&self) -> neptune_core::Result<Dataset> {
        match self {
            DatasetSource::Dir(dir) => Dataset::from_dir(dir),
            DatasetSource::Arrays {
                entities,
                relations,
                train,
                valid,
                test,
            } => Dataset::from_arrays(entities.len(), relations.len(), train, valid, test)?
                .with_names(entities.clone(), relations.clone()),
        }
    }
}
