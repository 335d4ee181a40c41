//! `RuleWalks`: a version's path rules and graph held by the engine, walked per question
//! (`neptune_core::rule_walk`): the evidence `src/model/rules/rule-walker.ts` serves with, one
//! question at a time or a batch on the libuv thread pool.

use crate::errors::EngineErrorCode;
use crate::errors::{argument_error, guarded, reject, EngineError, EngineResult};
use napi::bindgen_prelude::{
    AsyncTask, Float64Array, Float64ArraySlice, Int32Array, Object, Uint32Array, Uint32ArraySlice,
};
use napi::{Env, Task};
use napi_derive::napi;
use neptune_core::rule_walk::{PathIndex, RuleEvidence, WalkRule, WalkScratch};
use std::sync::{Arc, Mutex};

/// The rule sets, flattened: set s holds rules `setOffsets[s]..setOffsets[s + 1]`; rule i walks
/// `steps[stepOffsets[i]..stepOffsets[i + 1]]` (one to three steps) with `confidences[i]`.
#[napi(object)]
pub struct RuleSetArrays {
    pub set_offsets: Uint32Array,
    pub step_offsets: Uint32Array,
    pub steps: Uint32Array,
    pub confidences: Float64Array,
}

/// One question's evidence: the candidates reached (in the order first reached) and, per
/// candidate, the best confidence, the noisy-or and the number of rules that reach it. Built as
/// an `Object` by `evidence_object`: the struct gives its TypeScript type.
#[napi(object)]
#[allow(dead_code)]
pub struct WalkedEvidence {
    pub candidates: Uint32Array,
    pub max: Float64Array,
    pub noisy_or: Float64Array,
    pub rules: Uint32Array,
}

/// A batch's evidence, concatenated: question q's candidates are `offsets[q]..offsets[q + 1]`.
#[napi(object)]
pub struct WalkedBatch {
    pub offsets: Uint32Array,
    pub candidates: Uint32Array,
    pub max: Float64Array,
    pub noisy_or: Float64Array,
    pub rules: Uint32Array,
}

fn walk_rules(arrays: &RuleSetArrays, steps: u32) -> EngineResult<Vec<Vec<WalkRule>>> {
    let (sets, starts, flat, confidences) = (
        &arrays.set_offsets[..],
        &arrays.step_offsets[..],
        &arrays.steps[..],
        &arrays.confidences[..],
    );
    let rules = confidences.len();
    if starts.len() != rules + 1 || starts.last().copied() != Some(flat.len() as u32) {
        return Err(argument_error(
            "ruleSets.stepOffsets must run from 0 to steps.length, one more than the confidences",
        ));
    }
    if sets.first() != Some(&0) || sets.last().copied() != Some(rules as u32) {
        return Err(argument_error(
            "ruleSets.setOffsets must run from 0 to the number of rules",
        ));
    }
    let rule = |i: usize| -> EngineResult<WalkRule> {
        let (from, to) = (starts[i] as usize, starts[i + 1] as usize);
        if from > to || to - from == 0 || to - from > 3 {
            return Err(argument_error(format!("rule {i} must have 1 to 3 steps")));
        }
        if let Some(s) = flat[from..to].iter().find(|&&s| s >= steps) {
            return Err(argument_error(format!(
                "rule {i}'s step {s} is past {steps}"
            )));
        }
        Ok(WalkRule {
            steps: flat[from..to].to_vec(),
            confidence: confidences[i],
        })
    };
    sets.windows(2)
        .enumerate()
        .map(|(s, w)| {
            if w[0] > w[1] {
                return Err(argument_error(format!(
                    "ruleSets.setOffsets decrease at set {s}"
                )));
            }
            (w[0] as usize..w[1] as usize).map(rule).collect()
        })
        .collect()
}

fn as_u32(values: &[i32]) -> Vec<u32> {
    // A negative entry becomes too large for the index, which then names it.
    values.iter().map(|&v| v as u32).collect()
}

/// Walk marks for reuse: a question walks with one taken from here (or a new one when all are
/// in use) and puts it back, so a request does not allocate and fault in a graph's worth of marks.
#[derive(Default)]
struct ScratchPool(Mutex<Vec<WalkScratch>>);

impl ScratchPool {
    fn with<T>(&self, nodes: usize, f: impl FnOnce(&mut WalkScratch) -> T) -> T {
        let taken = self.0.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut scratch = taken.unwrap_or_else(|| WalkScratch::new(nodes));
        let out = f(&mut scratch);
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(scratch);
        out
    }
}

#[napi]
pub struct RuleWalks {
    index: Arc<PathIndex>,
    sets: Arc<Vec<Vec<WalkRule>>>,
    scratch: Arc<ScratchPool>,
}

#[napi]
impl RuleWalks {
    /// The graph as the TypeScript `GraphIndex` holds it (CSR `offsets`, per entry `step` and
    /// `neighbour`; `steps` = 2 x relations) and the rule sets walked in it (copied). Arrays
    /// that do not fit together throw `ENGINE_ARGUMENT` or `ENGINE_DATASET`, naming the entry.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        offsets: Int32Array,
        step: Int32Array,
        neighbour: Int32Array,
        steps: u32,
        rule_sets: RuleSetArrays,
    ) -> Result<RuleWalks, EngineError> {
        let sets = walk_rules(&rule_sets, steps)?;
        let index = PathIndex::new(as_u32(&offsets), as_u32(&step), as_u32(&neighbour), steps)
            .map_err(crate::errors::engine_error)?;
        Ok(RuleWalks {
            index: Arc::new(index),
            sets: Arc::new(sets),
            scratch: Arc::default(),
        })
    }

    /// The evidence of rule set `set` for the question from `entity` (nothing reached for an
    /// entity past the graph's nodes), walking at most `budget` entries.
    ///
    /// The arrays are copied into memory V8 allocates: the garbage collector frees them. Arrays
    /// lent from Rust vectors are freed by finalizers that wait for the event loop, so a
    /// synchronous loop of walks (calibration's) held every question's vectors until it ended.
    #[napi(catch_unwind, ts_return_type = "WalkedEvidence")]
    pub fn evidence<'env>(
        &self,
        env: &'env Env,
        entity: u32,
        set: u32,
        budget: u32,
    ) -> Result<Object<'env>, EngineError> {
        let rules = self.set(set)?;
        let found = self.scratch.with(self.index.nodes(), |scratch| {
            self.index.evidence(entity, rules, budget, scratch)
        });
        evidence_object(env, &found).map_err(|e| {
            napi::Error::new(
                EngineErrorCode::EngineInternal,
                format!("evidence arrays: {}", e.reason),
            )
        })
    }

    /// `evidence` for each (entities[q], sets[q]) on the libuv thread pool (the arrays copied).
    #[napi(catch_unwind, ts_return_type = "Promise<WalkedBatch>")]
    pub fn evidence_batch_async(
        &self,
        entities: Uint32Array,
        sets: Uint32Array,
        budget: u32,
    ) -> Result<AsyncTask<EvidenceBatchTask>, EngineError> {
        if entities.len() != sets.len() {
            return Err(argument_error(format!(
                "{} entities for {} rule sets",
                entities.len(),
                sets.len()
            )));
        }
        if let Some(&s) = sets.iter().find(|&&s| s as usize >= self.sets.len()) {
            return Err(argument_error(format!("no rule set {s}")));
        }
        Ok(AsyncTask::new(EvidenceBatchTask {
            index: Arc::clone(&self.index),
            sets: Arc::clone(&self.sets),
            scratch: Arc::clone(&self.scratch),
            questions: entities.iter().copied().zip(sets.iter().copied()).collect(),
            budget,
        }))
    }

    fn set(&self, set: u32) -> EngineResult<&[WalkRule]> {
        self.sets
            .get(set as usize)
            .map(Vec::as_slice)
            .ok_or_else(|| argument_error(format!("no rule set {set}")))
    }
}

/// `found` as a `WalkedEvidence` object of V8-allocated copies.
fn evidence_object<'env>(env: &'env Env, found: &RuleEvidence) -> napi::Result<Object<'env>> {
    let mut object = Object::new(env)?;
    object.set(
        "candidates",
        Uint32ArraySlice::copy_from(env, &found.candidates)?,
    )?;
    object.set("max", Float64ArraySlice::copy_from(env, &found.max)?)?;
    object.set(
        "noisyOr",
        Float64ArraySlice::copy_from(env, &found.noisy_or)?,
    )?;
    object.set("rules", Uint32ArraySlice::copy_from(env, &found.rules)?)?;
    Ok(object)
}

pub struct EvidenceBatchTask {
    index: Arc<PathIndex>,
    sets: Arc<Vec<Vec<WalkRule>>>,
    scratch: Arc<ScratchPool>,
    questions: Vec<(u32, u32)>,
    budget: u32,
}

impl Task for EvidenceBatchTask {
    type Output = EngineResult<(Vec<u32>, RuleEvidence)>;
    type JsValue = WalkedBatch;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let (index, sets, questions, budget) =
            (&self.index, &self.sets, &self.questions, self.budget);
        Ok(guarded(|| {
            let mut offsets = Vec::with_capacity(questions.len() + 1);
            let mut all = RuleEvidence::default();
            offsets.push(0);
            self.scratch.with(index.nodes(), |scratch| {
                for &(entity, set) in questions {
                    let found = index.evidence(entity, &sets[set as usize], budget, scratch);
                    all.candidates.extend(found.candidates);
                    all.max.extend(found.max);
                    all.noisy_or.extend(found.noisy_or);
                    all.rules.extend(found.rules);
                    offsets.push(all.candidates.len() as u32);
                }
            });
            Ok((offsets, all))
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<WalkedBatch> {
        output
            .map(|(offsets, all)| WalkedBatch {
                offsets: Uint32Array::new(offsets),
                candidates: Uint32Array::new(all.candidates),
                max: Float64Array::new(all.max),
                noisy_or: Float64Array::new(all.noisy_or),
                rules: Uint32Array::new(all.rules),
            })
            .or_else(|e| reject(env, e))
    }
}
