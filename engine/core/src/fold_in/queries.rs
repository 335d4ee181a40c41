//! A chunk's entities and their 1-N queries, flattened, from their edges.

use super::FoldInEdge;
use crate::error::{Error, Result};
use crate::model::Model;

/// Entities' queries, flattened: entity `e` owns queries `q_off[e]..q_off[e + 1]`; query `q`
/// asks `(e, relations[q])` and is answered by `targets[t_off[q]..t_off[q + 1]]`. Entity `e` is
/// a true tail of the known queries `tail_queries[p_off[e]..p_off[e + 1]]` (its edges seen from
/// the other end), query `p` with `tail_answers[p]` known answers besides it.
pub(super) struct Batch {
    pub(super) q_off: Vec<usize>,
    pub(super) relations: Vec<u32>,
    t_off: Vec<usize>,
    targets: Vec<u32>,
    pub(super) p_off: Vec<usize>,
    pub(super) tail_queries: Vec<(u32, u32)>,
    pub(super) tail_answers: Vec<u32>,
}

impl Batch {
    pub(super) fn new() -> Batch {
        Batch {
            q_off: vec![0],
            relations: Vec::new(),
            t_off: vec![0],
            targets: Vec::new(),
            p_off: vec![0],
            tail_queries: Vec::new(),
            tail_answers: Vec::new(),
        }
    }

    /// Adds entity `index` (named in errors) with its `edges`.
    pub(super) fn push(&mut self, model: &Model, index: usize, edges: &[FoldInEdge]) -> Result<()> {
        if edges.is_empty() {
            return Err(Error::arg(
                "entities",
                format!("entity {index} has no edges (fold-in needs at least one edge to an entity the model knows)"),
            ));
        }
        let (n, nb) = (model.n_entities(), model.relations.len());
        let (mut pairs, mut tails) = (Vec::with_capacity(edges.len()), Vec::new());
        for (j, e) in edges.iter().enumerate() {
            if e.other as usize >= n {
                return Err(Error::arg(
                    "entities",
                    format!(
                        "entity {index}, edge {j}: other end {} is out of range (model has {n} entities)",
                        e.other
                    ),
                ));
            }
            if e.relation as usize >= nb {
                return Err(Error::arg(
                    "entities",
                    format!(
                        "entity {index}, edge {j}: relation {} is not a base relation (model has {nb})",
                        e.relation
                    ),
                ));
            }
            let reverse = model.reverse_relation(e.relation)?;
            let (mine, theirs) = if e.outgoing {
                (e.relation, reverse)
            } else {
                (reverse, e.relation)
            };
            pairs.push((mine, e.other));
            tails.push(((e.other, theirs), e.answers));
        }
        pairs.sort_unstable();
        pairs.dedup();
        for run in pairs.chunk_by(|a, b| a.0 == b.0) {
            self.relations.push(run[0].0);
            self.targets.extend(run.iter().map(|p| p.1));
            self.t_off.push(self.targets.len());
        }
        self.q_off.push(self.relations.len());
        // A query's answers come from one graph: its duplicates agree, the first is kept.
        tails.sort_unstable();
        tails.dedup_by_key(|t| t.0);
        self.tail_queries.extend(tails.iter().map(|t| t.0));
        self.tail_answers.extend(tails.iter().map(|t| t.1));
        self.p_off.push(self.tail_queries.len());
        Ok(())
    }

    pub(super) fn append(&mut self, other: &Batch) {
        let (q0, t0) = (self.relations.len(), self.targets.len());
        self.q_off.extend(other.q_off[1..].iter().map(|o| o + q0));
        self.t_off.extend(other.t_off[1..].iter().map(|o| o + t0));
        self.relations.extend_from_slice(&other.relations);
        self.targets.extend_from_slice(&other.targets);
        let p0 = self.tail_queries.len();
        self.p_off.extend(other.p_off[1..].iter().map(|o| o + p0));
        self.tail_queries.extend_from_slice(&other.tail_queries);
        self.tail_answers.extend_from_slice(&other.tail_answers);
    }

    pub(super) fn entities(&self) -> usize {
        self.q_off.len() - 1
    }
    pub(super) fn queries(&self) -> usize {
        self.relations.len()
    }
    pub(super) fn targets(&self, q: usize) -> &[u32] {
        &self.targets[self.t_off[q]..self.t_off[q + 1]]
    }
    /// Entity `e`'s targets over all its queries, sorted, each once.
    pub(super) fn entity_targets(&self, e: usize) -> Vec<u32> {
        let mut all: Vec<u32> =
            self.targets[self.t_off[self.q_off[e]]..self.t_off[self.q_off[e + 1]]].to_vec();
        all.sort_unstable();
        all.dedup();
        all
    }
}
