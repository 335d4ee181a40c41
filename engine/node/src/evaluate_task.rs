//! `evaluate(...)`: filtered ranking metrics of a saved model on a dataset split, off the JS
//! thread.

use crate::convert::{metrics, DatasetArrays, DatasetSource, MetricsJs};
use crate::errors::{engine_error, guarded, reject, EngineResult};
use napi::bindgen_prelude::{AsyncTask, Either, Uint32Array};
use napi::{Env, Task};
use napi_derive::napi;
use neptune_core::{CandidateMask, Model, OutsideAnswer};

/// A dataset split.
#[napi(string_enum = "lowercase")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Split {
    Valid,
    Test,
}

/// Typed evaluation: bit `e` of row `2r + d` (d 0 tail, 1 head; rows of ceil(entities / 32)
/// words) allows entity e as a candidate of relation r in direction d.
#[napi(object)]
pub struct CandidateMaskJs {
    pub bits: Uint32Array,
    /// A true answer outside its candidates counts as a miss (ranked last) instead of ranked.
    pub miss_outside: Option<bool>,
}

pub struct EvaluateTask {
    model_dir: String,
    source: DatasetSource,
    split: Split,
    threads: usize,
    mask: Option<(Vec<u32>, bool)>,
}

impl Task for EvaluateTask {
    type Output = EngineResult<MetricsJs>;
    type JsValue = MetricsJs;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let model = Model::load(&self.model_dir).map_err(engine_error)?;
            let dataset = self.source.load().map_err(engine_error)?;
            let split = match self.split {
                Split::Valid => neptune_core::Split::Valid,
                Split::Test => neptune_core::Split::Test,
            };
            let result = match self.mask.take() {
                None => neptune_core::evaluate(&model, &dataset, split, self.threads),
                Some((bits, miss)) => {
                    let outside = if miss {
                        OutsideAnswer::Missed
                    } else {
                        OutsideAnswer::Ranked
                    };
                    let n_rel = dataset.n_relations();
                    CandidateMask::new(dataset.n_entities(), n_rel, bits, outside).and_then(
                        |mask| {
                            neptune_core::evaluate_typed(
                                &model,
                                &dataset,
                                split,
                                self.threads,
                                &mask,
                            )
                        },
                    )
                }
            }
            .map_err(engine_error)?;
            Ok(metrics(&result, &dataset.relations))
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<MetricsJs> {
        output.or_else(|e| reject(env, e))
    }
}

/// Evaluates the model saved in `modelDir` on `split` of `dataset`, filtered against
/// train+valid+test, with reversed queries. `threads` 0 = all cores. With `mask`, each query
/// ranks only its (relation, direction)'s candidates (the true answer always, unless
/// `missOutside`).
#[napi(ts_return_type = "Promise<MetricsJs>")]
pub fn evaluate(
    model_dir: String,
    dataset: Either<String, DatasetArrays>,
    split: Split,
    threads: u32,
    mask: Option<CandidateMaskJs>,
) -> AsyncTask<EvaluateTask> {
    AsyncTask::new(EvaluateTask {
        model_dir,
        source: DatasetSource::new(dataset),
        split,
        threads: threads as usize,
        mask: mask.map(|m| (m.bits.to_vec(), m.miss_outside.unwrap_or(false))),
    })
}
