//! Warm start: the first parameters of a new training run taken from a trained model whose
//! vocabularies differ from the new dataset's (the graph changed since it was trained).
//!
//! Rows are matched by name: `E` rows of entities the model knows, `R` rows of relations it
//! knows (and, with `InverseMode::NewRelation`, their `_reverse` rows), `W`, both BatchNorms
//! (affine parameters and running statistics) and the activation slope are copied. An entity the
//! model has never seen starts from its fold-in row ([`crate::fold_in`]: fitted against the
//! frozen trained model from its training edges to entities the model knows, over relations it
//! knows), as a served version would answer for it; one without such an edge, and every new
//! relation, keeps the seeded initialisation a fresh run would give it ([`Params::init`]).
//!
//! Adam's moments are not carried over: a model version keeps only its weights (no optimizer
//! state), and moments of the old run describe the gradients of a schedule that has ended (at
//! its final, decayed learning rate), not those of the new data at a fine-tuning rate. The
//! new run starts Adam afresh, with its bias correction, as after any restart.

use crate::config::Config;
use crate::dataset::{Dataset, InverseMode};
use crate::error::{Error, Result};
use crate::fold_in::{fold_in, FoldInEdge, FoldInSettings};
use crate::model::Model;
use crate::params::Params;
use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

/// What a warm start took from the trained model and what it initialised.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WarmStartStats {
    /// Entities of the new dataset whose rows were copied.
    pub copied_entities: usize,
    /// Entities the model did not know (fold-in rows or fresh ones).
    pub new_entities: usize,
    /// Of `new_entities`, those whose rows were fitted by fold-in.
    pub folded_in_entities: usize,
    /// Base relations of the new dataset whose rows were copied (with their reverses).
    pub copied_relations: usize,
    /// Base relations the model did not know (fresh rows).
    pub new_relations: usize,
    /// Entities the model knew that the new dataset no longer has (their rows are dropped).
    pub dropped_entities: usize,
}

/// Refuses a warm start whose tensors or their meaning would not carry over: the widths (the
/// shapes of `E`, `R`, `W`), the reverse-relation layout (which rows of `R` exist) and the
/// activation (the slope's meaning).
pub fn check_compatible(trained: &Config, new: &Config) -> Result<()> {
    let mut differ = Vec::new();
    if trained.d_e != new.d_e {
        differ.push(format!("entity width d_e {} vs {}", trained.d_e, new.d_e));
    }
    if trained.d_r != new.d_r {
        differ.push(format!("relation width d_r {} vs {}", trained.d_r, new.d_r));
    }
    if trained.inverse_mode != new.inverse_mode {
        differ.push(format!(
            "inverse mode {:?} vs {:?}",
            trained.inverse_mode, new.inverse_mode
        ));
    }
    if trained.activation != new.activation {
        differ.push(format!(
            "activation {:?} vs {:?}",
            trained.activation, new.activation
        ));
    }
    if differ.is_empty() {
        Ok(())
    } else {
        Err(Error::Config(format!(
            "cannot warm start from a model trained with other settings ({}): train from \
             scratch, or keep the trained model's settings",
            differ.join(", ")
        )))
    }
}

/// How new entities are folded in: the server's default fit (`KGC_FOLD_IN_STEPS`,
/// `KGC_FOLD_IN_CANDIDATES`), seeded by the run.
pub fn fold_in_settings(config: &Config) -> FoldInSettings {
    FoldInSettings {
        seed: config.seed,
        candidates: 1024,
        ..FoldInSettings::default()
    }
}

/// The new run's starting parameters for `dataset` under `config`, from `trained`'s weights
/// (see the module docs). Fails when the settings are incompatible ([`check_compatible`]) or
/// the trained model is inconsistent. `cancel` stops the new entities' fold-in (they then keep
/// their fresh rows).
pub fn warm_start_params(
    trained: &Model,
    config: &Config,
    dataset: &Dataset,
    cancel: &AtomicBool,
) -> Result<(Params<f32>, WarmStartStats)> {
    config.validate()?;
    trained.validate()?;
    check_compatible(&trained.config, config)?;
    let mode = config.inverse_mode;
    let (n_ent, nb) = (dataset.n_entities(), dataset.n_relations());
    let mut p = Params::<f32>::init(config, n_ent, mode.model_relations(nb));
    let old = &trained.params;
    let (d, dr) = (p.d_e, p.d_r);

    let old_entities: HashMap<&str, usize> = trained
        .entities
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut stats = WarmStartStats::default();
    for (j, name) in dataset.entities.iter().enumerate() {
        match old_entities.get(name.as_str()) {
            Some(&i) => {
                p.e[j * d..(j + 1) * d].copy_from_slice(&old.e[i * d..(i + 1) * d]);
                stats.copied_entities += 1;
            }
            None => stats.new_entities += 1,
        }
    }
    stats.dropped_entities = trained.entities.len() - stats.copied_entities;

    let old_nb = trained.relations.len();
    let old_relations: HashMap<&str, usize> = trained
        .relations
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut copy_row = |to: usize, from: usize| {
        p.r[to * dr..(to + 1) * dr].copy_from_slice(&old.r[from * dr..(from + 1) * dr]);
    };
    for (j, name) in dataset.relations.iter().enumerate() {
        match old_relations.get(name.as_str()) {
            Some(&i) => {
                copy_row(j, i);
                if mode == InverseMode::NewRelation {
                    copy_row(nb + j, old_nb + i);
                }
                stats.copied_relations += 1;
            }
            None => stats.new_relations += 1,
        }
    }

    p.w.copy_from_slice(&old.w);
    p.bn0 = old.bn0.clone();
    p.bn1 = old.bn1.clone();
    p.slope.copy_from_slice(&old.slope);
    let (ids, edges) = new_entity_edges(dataset, &old_entities, &old_relations);
    if let Some(rows) = fold_in(trained, &edges, &fold_in_settings(config), cancel)? {
        for (&j, row) in ids.iter().zip(rows.chunks_exact(d)) {
            p.e[j * d..(j + 1) * d].copy_from_slice(row);
        }
        stats.folded_in_entities = ids.len();
    }
    Ok((p, stats))
}

/// The dataset's new entities that have a training edge, over a relation `trained` knows, to
/// an entity it knows (their dataset ids, ascending), and those edges in `trained`'s ids, each
/// with the known entities answering its query seen from the known end.
fn new_entity_edges(
    dataset: &Dataset,
    old_entities: &HashMap<&str, usize>,
    old_relations: &HashMap<&str, usize>,
) -> (Vec<usize>, Vec<Vec<FoldInEdge>>) {
    let known = |j: u32| {
        old_entities
            .get(dataset.entities[j as usize].as_str())
            .copied()
    };
    // (known end, dataset relation, the new end is the head): the known entities at the new
    // end's place, i.e. the answers of the query a new entity there joins.
    let mut answers: HashMap<(u32, u32, bool), u32> = HashMap::new();
    for &[h, r, t] in &dataset.train {
        if let (Some(_), Some(_)) = (known(h), known(t)) {
            *answers.entry((t, r, true)).or_default() += 1;
            *answers.entry((h, r, false)).or_default() += 1;
        }
    }
    let answers_of = |key| answers.get(&key).copied().unwrap_or(0);
    let mut edges: Vec<Vec<FoldInEdge>> = vec![Vec::new(); dataset.n_entities()];
    for &[h, r, t] in &dataset.train {
        let Some(&relation) = old_relations.get(dataset.relations[r as usize].as_str()) else {
            continue;
        };
        let relation = relation as u32;
        match (known(h), known(t)) {
            (None, Some(other)) => edges[h as usize].push(FoldInEdge {
                relation,
                other: other as u32,
                outgoing: true,
                answers: answers_of((t, r, true)),
            }),
            (Some(other), None) => edges[t as usize].push(FoldInEdge {
                relation,
                other: other as u32,
                outgoing: false,
                answers: answers_of((h, r, false)),
            }),
            _ => {}
        }
    }
    edges
        .into_iter()
        .enumerate()
        .filter(|(_, list)| !list.is_empty())
        .unzip()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Activation;

    static NEVER: AtomicBool = AtomicBool::new(false);

    fn config(mode: InverseMode) -> Config {
        Config {
            d_e: 4,
            d_r: 3,
            inverse_mode: mode,
            seed: 7,
            ..Config::preset("default").unwrap()
        }
    }

    fn dataset(entities: &[&str], relations: &[&str]) -> Dataset {
        Dataset::from_arrays(
            entities.len(),
            relations.len(),
            &[0, 0, 1, 1, 0, 0],
            &[],
            &[],
        )
        .unwrap()
        .with_names(
            entities.iter().map(|s| s.to_string()).collect(),
            relations.iter().map(|s| s.to_string()).collect(),
        )
        .unwrap()
    }

    /// A model over `entities`/`relations` whose every tensor differs from a fresh init.
    fn trained(cfg: &Config, entities: &[&str], relations: &[&str]) -> Model {
        let nr = cfg.inverse_mode.model_relations(relations.len());
        let mut p = Params::<f32>::init(cfg, entities.len(), nr);
        for (k, t) in p.trainable_mut().into_iter().enumerate() {
            for (i, x) in t.iter_mut().enumerate() {
                *x = 10.0 * (k + 1) as f32 + i as f32 * 0.01;
            }
        }
        p.bn0.running_mean.iter_mut().for_each(|x| *x = 3.5);
        p.bn1.running_var.iter_mut().for_each(|x| *x = 4.5);
        Model::new(
            cfg.clone(),
            p,
            entities.iter().map(|s| s.to_string()).collect(),
            relations.iter().map(|s| s.to_string()).collect(),
            12,
            None,
        )
    }

    #[test]
    fn a_new_entitys_edges_carry_the_known_answers_of_their_queries() {
        // Known a, b, c; "new" knows b, and b knows new. b is known by a and c (two other
        // answers of (b, knows^-1)); b knows a (one other answer of (b, knows)).
        let names = ["a", "b", "c", "new"];
        let data = Dataset::from_arrays(
            4,
            1,
            &[0, 0, 1, 2, 0, 1, 3, 0, 1, 1, 0, 3, 1, 0, 0],
            &[],
            &[],
        )
        .unwrap()
        .with_names(names.map(String::from).to_vec(), vec!["knows".to_string()])
        .unwrap();
        let old_entities = HashMap::from([("a", 0), ("b", 1), ("c", 2)]);
        let old_relations = HashMap::from([("knows", 0)]);
        let (ids, edges) = new_entity_edges(&data, &old_entities, &old_relations);
        assert_eq!(ids, [3]);
        let answers: Vec<(bool, u32)> = edges[0].iter().map(|e| (e.outgoing, e.answers)).collect();
        assert_eq!(answers, [(true, 2), (false, 1)]);
    }

    #[test]
    fn copies_known_rows_by_name_and_initialises_new_ones() {
        let cfg = config(InverseMode::NewRelation);
        let old = trained(&cfg, &["a", "b", "gone"], &["likes", "knows"]);
        // Reordered, one entity gone, one new; relations reordered plus a new one.
        let data = dataset(&["b", "new", "a"], &["knows", "fresh", "likes"]);
        let (p, stats) = warm_start_params(&old, &cfg, &data, &NEVER).unwrap();
        let fresh = Params::<f32>::init(&cfg, 3, 6);
        let (d, dr) = (4, 3);
        let row = |v: &[f32], i: usize, w: usize| v[i * w..(i + 1) * w].to_vec();
        assert_eq!(row(&p.e, 0, d), row(&old.params.e, 1, d), "b");
        assert_eq!(row(&p.e, 2, d), row(&old.params.e, 0, d), "a");
        // "new" has two training edges with b over knows (both known): its fold-in row.
        let edges = [false, true].map(|outgoing| FoldInEdge {
            relation: 1,
            other: 1,
            outgoing,
            answers: 0,
        });
        let folded = fold_in(&old, &[edges.to_vec()], &fold_in_settings(&cfg), &NEVER);
        assert_eq!(row(&p.e, 1, d), folded.unwrap().unwrap(), "new: folded in");
        assert_ne!(row(&p.e, 1, d), row(&fresh.e, 1, d));
        // Base rows, then reverse rows (old: likes 0, knows 1, likes_rev 2, knows_rev 3).
        assert_eq!(row(&p.r, 0, dr), row(&old.params.r, 1, dr), "knows");
        assert_eq!(row(&p.r, 2, dr), row(&old.params.r, 0, dr), "likes");
        assert_eq!(row(&p.r, 3, dr), row(&old.params.r, 3, dr), "knows_reverse");
        assert_eq!(row(&p.r, 5, dr), row(&old.params.r, 2, dr), "likes_reverse");
        assert_eq!(row(&p.r, 1, dr), row(&fresh.r, 1, dr), "fresh");
        assert_eq!(row(&p.r, 4, dr), row(&fresh.r, 4, dr), "fresh_reverse");
        assert_eq!(p.w, old.params.w);
        assert_eq!(p.bn0, old.params.bn0);
        assert_eq!(p.bn1, old.params.bn1);
        assert_eq!(p.slope, old.params.slope);
        assert_eq!(
            stats,
            WarmStartStats {
                copied_entities: 2,
                new_entities: 1,
                folded_in_entities: 1,
                copied_relations: 2,
                new_relations: 1,
                dropped_entities: 1,
            }
        );
    }

    #[test]
    fn a_new_entity_without_a_known_edge_or_cancelled_keeps_the_seeded_init() {
        let cfg = config(InverseMode::NewRelation);
        let old = trained(&cfg, &["a", "b"], &["likes"]);
        let fresh = Params::<f32>::init(&cfg, 3, 4);
        // Its only edges are of a relation the model has never seen.
        let data = dataset(&["b", "new", "a"], &["fresh", "likes"]);
        let (p, stats) = warm_start_params(&old, &cfg, &data, &NEVER).unwrap();
        assert_eq!(p.e[4..8], fresh.e[4..8]);
        assert_eq!((stats.new_entities, stats.folded_in_entities), (1, 0));
        // Its edges are known, but the run was cancelled before its fold-in.
        let data = dataset(&["b", "new", "a"], &["likes", "fresh"]);
        let (p, stats) = warm_start_params(&old, &cfg, &data, &AtomicBool::new(true)).unwrap();
        assert_eq!(p.e[4..8], fresh.e[4..8]);
        assert_eq!((stats.new_entities, stats.folded_in_entities), (1, 0));
    }

    #[test]
    fn same_relation_mode_has_no_reverse_rows() {
        let cfg = config(InverseMode::SameRelation);
        let old = trained(&cfg, &["a", "b"], &["likes"]);
        let data = dataset(&["a", "b"], &["new", "likes"]);
        let (p, stats) = warm_start_params(&old, &cfg, &data, &NEVER).unwrap();
        assert_eq!(p.n_rel, 2);
        assert_eq!(p.r[3..6], old.params.r[0..3]);
        assert_eq!(p.r[0..3], Params::<f32>::init(&cfg, 2, 2).r[0..3]);
        assert_eq!((stats.copied_relations, stats.new_relations), (1, 1));
    }

    #[test]
    fn refuses_other_widths_modes_and_activations() {
        let cfg = config(InverseMode::NewRelation);
        let old = trained(&cfg, &["a", "b"], &["likes"]);
        let data = dataset(&["a", "b"], &["likes"]);
        let cases = [
            (
                Config {
                    d_e: 8,
                    ..cfg.clone()
                },
                "d_e 4 vs 8",
            ),
            (
                Config {
                    d_r: 5,
                    ..cfg.clone()
                },
                "d_r 3 vs 5",
            ),
            (
                Config {
                    inverse_mode: InverseMode::SameRelation,
                    ..cfg.clone()
                },
                "inverse mode",
            ),
            (
                Config {
                    activation: Activation::Relu,
                    ..cfg.clone()
                },
                "activation",
            ),
        ];
        for (new, what) in cases {
            let err = warm_start_params(&old, &new, &data, &NEVER)
                .unwrap_err()
                .to_string();
            assert!(err.contains(what), "{err}");
            assert!(err.contains("cannot warm start"), "{err}");
        }
    }

    #[test]
    fn other_settings_carry_over() {
        let cfg = config(InverseMode::NewRelation);
        let old = trained(&cfg, &["a", "b"], &["likes"]);
        let data = dataset(&["a", "b"], &["likes"]);
        let new = Config {
            lr: cfg.lr / 2.0,
            epochs: 3,
            dropout_in: 0.0,
            seed: 99,
            ..cfg.clone()
        };
        let (p, _) = warm_start_params(&old, &new, &data, &NEVER).unwrap();
        assert_eq!(p.e, old.params.e);
        assert_eq!(p.r, old.params.r);
    }
}
