//! The training loop: shuffled unique `(h, r)` pairs, batches, Adam with exponential decay,
//! periodic validation, best-by-validation-MRR selection, early stopping, cancellation,
//! checkpoints and resume.

use crate::adam::Adam;
use crate::checkpoint::{self, TrainState};
use crate::config::Config;
use crate::dataset::{Dataset, PairIndex, Triple};
use crate::early_stopping;
use crate::error::{Error, Result};
use crate::eval::{evaluate_triples, Metrics};
use crate::evaluate::{evaluate_in_pool, seeded_sample, Split};
use crate::lr_schedule;
use crate::model::Model;
use crate::net::Batch;
use crate::params::Params;
use crate::rng::{CounterRng, Stream};
use crate::sampled_steps::SampledSteps;
use crate::scoring::queries_per_chunk;
use crate::step_engine::{CpuSteps, StepEngine, StepEngineFactory};
use crate::warm_start::{self, WarmStartStats};
use crate::weight_average::WeightAverage;
use rayon::ThreadPool;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Reported through the training callback. Epochs are counted from 1.
#[derive(Clone, Debug)]
pub enum Progress {
    Batch {
        epoch: usize,
        batch: usize,
        batches: usize,
        loss: f64,
        examples_per_sec: f64,
        /// Wall time of this batch's step.
        seconds: f64,
    },
    Epoch {
        epoch: usize,
        epochs: usize,
        loss: f64,
        seconds: f64,
        examples_per_sec: f64,
        lr: f64,
    },
    Validation {
        epoch: usize,
        metrics: Metrics,
        best_mrr: f64,
        improved: bool,
        seconds: f64,
    },
}

/// Why training ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    Completed,
    EarlyStopped,
    /// The time limit ([`Trainer::with_time_limit`]) was reached.
    TimeLimit,
    Cancelled,
}

/// What one epoch of a config costs on this machine ([`Trainer::estimate_epoch`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochEstimate {
    /// Training steps of one epoch.
    pub epoch_seconds: f64,
    /// One validation over the whole validation split.
    pub validation_seconds: f64,
    pub batches_per_epoch: usize,
    /// Wall time the estimate itself took.
    pub probe_seconds: f64,
}

/// The result of [`Trainer::train`]: the best model by validation MRR (the last one when there
/// was no validation), and how training went.
#[derive(Debug)]
pub struct TrainOutcome {
    pub model: Model,
    pub stop: StopReason,
    /// Epochs completed in total (including those before a resume).
    pub epochs_run: usize,
    pub state: TrainState,
    /// Seconds spent in each phase of the training steps of this call after its first (the
    /// first step's warm-up allocates buffers and chooses product orientations), a profiling aid.
    pub phase_seconds: Vec<(String, f64)>,
    /// What a warm start ([`Trainer::with_warm_start_from`]) copied and initialised.
    pub warm_start: Option<WarmStartStats>,
}

/// Validation triples timed by [`Trainer::estimate_epoch`].
const VALIDATION_PROBE_TRIPLES: usize = 1_000;

/// Validation triples a run with sampled candidates ranks: a seeded sample, the same at every
/// validation. Ranking all of a large graph's validation split against every entity costs about
/// half an hour at a million entities on 2 cores; 10,000 triples estimate the MRR within about
/// .004 (standard error), enough to pick the best epoch.
pub const SAMPLED_RUN_VALIDATION_TRIPLES: usize = 10_000;

/// The validation triples `config` ranks: every one, or for a run with sampled candidates at
/// most [`SAMPLED_RUN_VALIDATION_TRIPLES`] of them (a seeded draw without replacement, in the
/// split's order).
pub fn validation_triples<'a>(config: &Config, valid: &'a [Triple]) -> Cow<'a, [Triple]> {
    if config.sampled_candidates == 0 {
        return Cow::Borrowed(valid);
    }
    seeded_sample(valid, SAMPLED_RUN_VALIDATION_TRIPLES, config.seed)
}

/// Trains models with one [`Config`] on a private rayon pool of `config.threads` threads.
pub struct Trainer {
    pub config: Config,
    /// When set, `<dir>/last` (with optimizer state, for resuming) is written at every
    /// validation and at the end, and `<dir>/best` whenever validation MRR improves.
    pub checkpoint_dir: Option<PathBuf>,
    /// Resume from `<dir>/last` (and `<dir>/best`) of an earlier run's checkpoint directory.
    pub resume_from: Option<PathBuf>,
    /// Start from this saved model's weights, mapped onto the dataset's vocabularies by name
    /// ([`crate::warm_start`]); a resume takes precedence (its `last` already holds them).
    pub warm_start_from: Option<PathBuf>,
    /// Stop once this much wall time has passed (see [`Trainer::with_time_limit`]).
    pub time_limit: Option<Duration>,
    /// Spread the planned lr decay over the epochs that fit in the time limit
    /// ([`Trainer::with_time_annealing`]).
    pub anneal_to_time_limit: bool,
    /// Runs the steps elsewhere than on the CPU ([`Trainer::with_step_engine`]).
    step_engine: Option<StepEngineFactory>,
    pool: ThreadPool,
}

impl Trainer {
    pub fn new(config: Config) -> Result<Trainer> {
        config.validate()?;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(config.threads)
            .thread_name(|i| format!("neptune-{i}"))
            .build()
            .map_err(|e| Error::ThreadPool(e.to_string()))?;
        Ok(Trainer {
            config,
            checkpoint_dir: None,
            resume_from: None,
            warm_start_from: None,
            time_limit: None,
            anneal_to_time_limit: false,
            step_engine: None,
            pool,
        })
    }

    pub fn with_checkpoint_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.checkpoint_dir = Some(dir.into());
        self
    }

    pub fn with_resume_from(mut self, dir: impl Into<PathBuf>) -> Self {
        self.resume_from = Some(dir.into());
        self
    }

    /// Starts from the model saved in `dir` (a model version or `Model::save` directory) instead
    /// of a fresh init: see [`crate::warm_start`]. Adam starts afresh.
    pub fn with_warm_start_from(mut self, dir: impl Into<PathBuf>) -> Self {
        self.warm_start_from = Some(dir.into());
        self
    }

    /// Training stops with [`StopReason::TimeLimit`] before an epoch that would not finish
    /// within `limit` (judged by the mean epoch so far), or between batches once `limit` has
    /// passed; the current weights are then validated, so the kept model is the best validated
    /// one.
    pub fn with_time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// With a time limit: before each epoch, project from the epochs so far (validations
    /// included) how many will fit, and spread the config's planned lr decay (`decay` per epoch
    /// over `epochs`) over those instead ([`lr_schedule::stretched_lr`]), so the anneal ends
    /// when the time does even where the plan's epoch estimate was off. Without a time limit,
    /// or before the first epoch has been timed, the planned schedule.
    pub fn with_time_annealing(mut self) -> Self {
        self.anneal_to_time_limit = true;
        self
    }

    /// Runs the training steps on the engine `factory` builds (a GPU backend) instead of the
    /// CPU; validation, checkpoints and the schedule stay here.
    pub fn with_step_engine(mut self, factory: StepEngineFactory) -> Self {
        self.step_engine = Some(factory);
        self
    }

    /// Times `probe_batches` training steps of this config from a fresh start (the median of
    /// the later half) and a validation over part of the validation split, and extrapolates
    /// both to the full epoch and split.
    pub fn estimate_epoch(&self, dataset: &Dataset, probe_batches: usize) -> Result<EpochEstimate> {
        let started = Instant::now();
        let mut probe = Trainer::new(Config {
            epochs: 1,
            eval_every: 0,
            ..self.config.clone()
        })?;
        probe.step_engine = self.step_engine.clone();
        let cancel = AtomicBool::new(false);
        let (mut step_seconds, mut batches_per_epoch) = (Vec::new(), 1);
        let wanted = probe_batches.max(2);
        let outcome = probe.train(
            dataset,
            |p| {
                if let Progress::Batch {
                    batches, seconds, ..
                } = p
                {
                    step_seconds.push(*seconds);
                    batches_per_epoch = *batches;
                    if step_seconds.len() >= wanted {
                        cancel.store(true, Ordering::Relaxed);
                    }
                }
            },
            &cancel,
        )?;
        // The median of the later steps: the first ones also start threads and fault in buffers.
        let mut timed = step_seconds[step_seconds.len() / 2..].to_vec();
        timed.sort_by(f64::total_cmp);
        let per_batch = timed.get(timed.len() / 2).copied().unwrap_or(0.0);
        let valid = validation_triples(&self.config, &dataset.valid);
        let sample = &valid[..valid.len().min(VALIDATION_PROBE_TRIPLES)];
        let mut validation_seconds = 0.0;
        if !sample.is_empty() {
            let mode = self.config.inverse_mode;
            let filter = dataset.filter_index(mode);
            let t = Instant::now();
            self.pool.install(|| {
                evaluate_triples(
                    &outcome.model.params,
                    sample,
                    dataset.n_relations(),
                    mode,
                    &filter,
                    queries_per_chunk(dataset.n_entities()),
                )
            });
            validation_seconds =
                t.elapsed().as_secs_f64() * valid.len() as f64 / sample.len() as f64;
        }
        Ok(EpochEstimate {
            epoch_seconds: per_batch * batches_per_epoch as f64,
            validation_seconds,
            batches_per_epoch,
            probe_seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Filtered evaluation of `model` on a split of `dataset` (which must share its vocabulary),
    /// on this trainer's pool.
    pub fn evaluate(&self, model: &Model, dataset: &Dataset, split: Split) -> Result<Metrics> {
        self.pool
            .install(|| evaluate_in_pool(model, dataset, split))
    }

    /// Trains on `dataset`, calling `on_progress` after every batch, epoch and validation, and
    /// checking `cancel` between batches (a cancelled run returns `Ok` with
    /// `StopReason::Cancelled` and the best model so far).
    pub fn train(
        &self,
        dataset: &Dataset,
        mut on_progress: impl FnMut(&Progress),
        cancel: &AtomicBool,
    ) -> Result<TrainOutcome> {
        let cfg = &self.config;
        cfg.validate()?;
        dataset.validate()?;
        let mode = cfg.inverse_mode;
        let index = dataset.train_index(mode);
        if index.len() < 2 {
            return Err(Error::Dataset(
                "training needs at least two distinct (head, relation) pairs".into(),
            ));
        }
        let n_model_rel = mode.model_relations(dataset.n_relations());
        let mut warm_start = None;
        let (mut params, mut adam, state, best, average) =
            match (&self.resume_from, &self.warm_start_from) {
                (Some(dir), _) => self.load_resume(dir, dataset)?,
                (None, Some(dir)) => {
                    // New entities are folded in on this trainer's threads.
                    let (p, stats) = self.pool.install(|| {
                        warm_start::warm_start_params(&Model::load(dir)?, cfg, dataset, cancel)
                    })?;
                    warm_start = Some(stats);
                    let a = Adam::new(&p);
                    (p, a, TrainState::default(), Best::None, None)
                }
                (None, None) => {
                    let p = Params::<f32>::init(cfg, dataset.n_entities(), n_model_rel);
                    let a = Adam::new(&p);
                    (p, a, TrainState::default(), Best::None, None)
                }
            };
        let mut engine: Box<dyn StepEngine + '_> = match &self.step_engine {
            Some(factory) => factory(cfg, &params, &adam)?,
            None if cfg.sampled_candidates > 0 => {
                Box::new(SampledSteps::new(&self.pool, cfg, &params, adam.step))
            }
            None => Box::new(CpuSteps::new(&self.pool, cfg, &params)),
        };
        let mut batch = Batch::default();
        let mut order: Vec<u32> = Vec::with_capacity(index.len());
        let bounds = batch_bounds(index.len(), cfg.batch_size);
        let mut stop = StopReason::Completed;
        let started = Instant::now();
        let mut kept = Kept {
            state,
            best,
            filter: None,
            valid: None,
            validated_epoch: None,
            average: WeightAverage::new(cfg.weight_average, average),
        };
        let out_of_time = |extra: f64| {
            self.time_limit
                .is_some_and(|limit| started.elapsed().as_secs_f64() + extra > limit.as_secs_f64())
        };
        let mut epoch_seconds_sum = 0.0;
        let mut epochs_this_call = 0usize;
        let mut last_lr = f64::INFINITY;
        // Where this call started (after the resumed epochs): the stretched anneal starts here.
        let first_epoch = kept.state.epoch;
        let mut warm_up_phases: Option<Vec<(String, f64)>> = None;

        'epochs: while kept.state.epoch < cfg.epochs {
            let mean_epoch = epoch_seconds_sum / epochs_this_call.max(1) as f64;
            if epochs_this_call > 0 && out_of_time(mean_epoch) {
                stop = StopReason::TimeLimit;
                break;
            }
            let epoch = kept.state.epoch + 1;
            let lr = match self.time_limit {
                Some(limit) if self.anneal_to_time_limit && epochs_this_call > 0 => {
                    let elapsed = started.elapsed().as_secs_f64();
                    let end = lr_schedule::projected_end(
                        kept.state.epoch,
                        cfg.epochs,
                        limit.as_secs_f64() - elapsed,
                        elapsed / epochs_this_call as f64,
                    );
                    let stretched = lr_schedule::stretched_lr(
                        cfg.lr,
                        cfg.decay,
                        cfg.epochs,
                        first_epoch,
                        kept.state.epoch,
                        end,
                    );
                    // The projection moves with each epoch's timing; the rate only goes down.
                    stretched.min(last_lr)
                }
                _ => lr_schedule::planned_lr(cfg.lr, cfg.decay, kept.state.epoch),
            };
            last_lr = lr;
            // The order depends only on (seed, epoch): a resumed run sees the same batches.
            order.clear();
            order.extend(0..index.len() as u32);
            CounterRng::new(cfg.seed, kept.state.epoch as u64, Stream::Shuffle).shuffle(&mut order);
            let t_epoch = Instant::now();
            let mut loss_sum = 0.0;
            for (bi, &(s, e)) in bounds.iter().enumerate() {
                if cancel.load(Ordering::Relaxed) {
                    stop = StopReason::Cancelled;
                    break 'epochs;
                }
                if out_of_time(0.0) {
                    stop = StopReason::TimeLimit;
                    break 'epochs;
                }
                let t_batch = Instant::now();
                fill_batch(&mut batch, &index, &order[s..e]);
                let loss = engine.step(&mut params, &mut adam, &batch, lr)?;
                if warm_up_phases.is_none() {
                    warm_up_phases = Some(engine.phase_seconds());
                }
                loss_sum += loss;
                let secs = t_batch.elapsed().as_secs_f64().max(1e-9);
                on_progress(&Progress::Batch {
                    epoch,
                    batch: bi + 1,
                    batches: bounds.len(),
                    loss,
                    examples_per_sec: (e - s) as f64 / secs,
                    seconds: secs,
                });
            }
            kept.state.epoch = epoch;
            if kept.average.is_on() {
                engine.sync(&mut params, &mut adam)?;
                kept.average.update(&params);
            }
            let seconds = t_epoch.elapsed().as_secs_f64();
            epoch_seconds_sum += seconds;
            epochs_this_call += 1;
            on_progress(&Progress::Epoch {
                epoch,
                epochs: cfg.epochs,
                loss: loss_sum / bounds.len() as f64,
                seconds,
                examples_per_sec: index.len() as f64 / seconds.max(1e-9),
                lr,
            });
            let due =
                cfg.eval_every > 0 && (epoch.is_multiple_of(cfg.eval_every) || epoch == cfg.epochs);
            if due && !dataset.valid.is_empty() {
                engine.sync(&mut params, &mut adam)?;
                self.validate(dataset, &params, &adam, &mut kept, &mut on_progress)?;
                let state = &kept.state;
                if early_stopping::should_stop(
                    &state.valid_mrrs,
                    state.evals_since_best,
                    cfg.patience,
                ) {
                    stop = StopReason::EarlyStopped;
                    break;
                }
            }
        }
        // Out of time: the weights trained since the last validation are judged too.
        let unvalidated = kept.validated_epoch != Some(kept.state.epoch) && kept.state.epoch > 0;
        if stop == StopReason::TimeLimit
            && unvalidated
            && cfg.eval_every > 0
            && !dataset.valid.is_empty()
        {
            engine.sync(&mut params, &mut adam)?;
            self.validate(dataset, &params, &adam, &mut kept, &mut on_progress)?;
        }
        engine.sync(&mut params, &mut adam)?;
        let warm_up = warm_up_phases.unwrap_or_default();
        let phase_seconds = engine
            .phase_seconds()
            .into_iter()
            .map(|(name, secs)| {
                let before = warm_up.iter().find(|p| p.0 == name).map_or(0.0, |p| p.1);
                (name, secs - before)
            })
            .collect();
        drop(engine);
        if stop != StopReason::Cancelled {
            self.save_last(dataset, &params, &adam, &kept)?;
        }
        let Kept {
            state,
            best,
            average,
            ..
        } = kept;
        let model = match best {
            Best::Held(m) => *m,
            Best::Saved(dir) => {
                // Read back once the weights and moments are gone: never both in memory.
                drop((params, adam, average));
                Model::load(dir)?
            }
            Best::None => {
                let last = average.average().cloned().unwrap_or(params);
                self.model(dataset, last, state.epoch, None)
            }
        };
        Ok(TrainOutcome {
            model,
            stop,
            epochs_run: state.epoch,
            state,
            phase_seconds,
            warm_start,
        })
    }

    /// Validates `params` (their average, with weight averaging), keeps what was judged (and
    /// checkpoints `best`) when validation MRR improved, and writes `last`.
    fn validate(
        &self,
        dataset: &Dataset,
        params: &Params<f32>,
        adam: &Adam<f32>,
        kept: &mut Kept,
        on_progress: &mut impl FnMut(&Progress),
    ) -> Result<()> {
        let t = Instant::now();
        let mode = self.config.inverse_mode;
        let epoch = kept.state.epoch;
        let filter = kept
            .filter
            .get_or_insert_with(|| dataset.filter_index(mode));
        let valid = kept
            .valid
            .get_or_insert_with(|| validation_triples(&self.config, &dataset.valid).into_owned());
        let judged = kept.average.judged(params);
        let metrics = self.pool.install(|| {
            evaluate_triples(
                judged,
                valid,
                dataset.n_relations(),
                mode,
                filter,
                queries_per_chunk(dataset.n_entities()),
            )
        });
        let mrr = metrics.overall.mrr;
        let state = &mut kept.state;
        state.valid_mrrs.push(mrr);
        let improved = state.best_mrr.is_none_or(|b| mrr > b);
        if improved {
            state.best_mrr = Some(mrr);
            state.best_epoch = epoch;
            state.evals_since_best = 0;
            // The earlier best is dropped first: never two best copies at once.
            kept.best = Best::None;
            kept.best = match &self.checkpoint_dir {
                Some(dir) => {
                    let best = checkpoint::ModelRef {
                        valid_metrics: Some(&metrics),
                        ..self.saved(dataset, judged, epoch)
                    };
                    checkpoint::save(&dir.join("best"), best, None, None)?;
                    Best::Saved(dir.join("best"))
                }
                None => Best::Held(Box::new(self.model(
                    dataset,
                    judged.clone(),
                    epoch,
                    Some(metrics.clone()),
                ))),
            };
        } else {
            state.evals_since_best += 1;
        }
        kept.validated_epoch = Some(epoch);
        on_progress(&Progress::Validation {
            epoch,
            metrics,
            best_mrr: kept.state.best_mrr.unwrap_or(mrr),
            improved,
            seconds: t.elapsed().as_secs_f64(),
        });
        self.save_last(dataset, params, adam, kept)
    }

    fn model(
        &self,
        dataset: &Dataset,
        params: Params<f32>,
        epoch: usize,
        valid: Option<Metrics>,
    ) -> Model {
        Model::new(
            self.config.clone(),
            params,
            dataset.entities.clone(),
            dataset.relations.clone(),
            epoch,
            valid,
        )
    }

    /// `params` as a checkpoint reads them: saved from the live weights, not a clone of them.
    fn saved<'a>(
        &'a self,
        dataset: &'a Dataset,
        params: &'a Params<f32>,
        epoch: usize,
    ) -> checkpoint::ModelRef<'a> {
        checkpoint::ModelRef {
            config: &self.config,
            params,
            entities: &dataset.entities,
            relations: &dataset.relations,
            epoch,
            valid_metrics: None,
        }
    }

    fn save_last(
        &self,
        dataset: &Dataset,
        params: &Params<f32>,
        adam: &Adam<f32>,
        kept: &Kept,
    ) -> Result<()> {
        if let Some(dir) = &self.checkpoint_dir {
            let epoch = kept.state.epoch;
            checkpoint::save(
                &dir.join("last"),
                self.saved(dataset, params, epoch),
                Some(adam.saved()),
                Some(&kept.state),
            )?;
            if let Some(average) = kept.average.average() {
                let average = self.saved(dataset, average, epoch);
                checkpoint::save(&dir.join(LAST_AVERAGE), average, None, None)?;
            }
        }
        Ok(())
    }

    /// The interrupted run's weights, optimizer, state, best model and (with weight averaging)
    /// its average; where none was saved at that epoch, the average starts again from the
    /// weights.
    #[allow(clippy::type_complexity)]
    fn load_resume(
        &self,
        dir: &std::path::Path,
        dataset: &Dataset,
    ) -> Result<(
        Params<f32>,
        Adam<f32>,
        TrainState,
        Best,
        Option<Params<f32>>,
    )> {
        let ck = checkpoint::load(&dir.join("last"))?;
        let bad = |m: &str| Error::checkpoint(dir.join("last"), m.to_string());
        let (c, m) = (&self.config, &ck.model.config);
        if (c.d_e, c.d_r, c.inverse_mode, c.activation)
            != (m.d_e, m.d_r, m.inverse_mode, m.activation)
        {
            return Err(bad(
                "d_e, d_r, inverse mode and activation must match the config being resumed",
            ));
        }
        // The loss's optimizer moments and validation history belong to it: a resumed run
        // keeps the loss it started with.
        if c.loss != m.loss {
            return Err(bad(&format!(
                "the run being resumed trained with loss {:?}, this config has {:?}: resume \
                 with the same loss",
                m.loss, c.loss
            )));
        }
        ck.model.check_vocabulary(dataset)?;
        let adam = ck
            .optimizer
            .map(Adam::from_saved)
            .ok_or_else(|| bad("no optimizer state saved; cannot resume"))?;
        let state = ck
            .train_state
            .ok_or_else(|| bad("no training state saved; cannot resume"))?;
        let best = match state.best_mrr {
            Some(_) => self.resumed_best(&dir.join("best"))?,
            None => Best::None,
        };
        let saved_average = dir.join(LAST_AVERAGE);
        // An average from another epoch (the run stopped between the two writes) is dropped.
        let average = if self.config.weight_average > 0.0 && saved_average.exists() {
            Some(Model::load(&saved_average)?).filter(|m| m.epoch == state.epoch)
        } else {
            None
        };
        Ok((
            ck.model.params,
            adam,
            state,
            best,
            average.map(|m| m.params),
        ))
    }
}

impl Trainer {
    /// The resumed run's best model, `saved` in its checkpoint directory: left there when this
    /// run checkpoints into the same directory, else copied into this run's (or held).
    fn resumed_best(&self, saved: &Path) -> Result<Best> {
        let Some(dir) = &self.checkpoint_dir else {
            return Ok(Best::Held(Box::new(Model::load(saved)?)));
        };
        let ours = dir.join("best");
        let same = |a: &Path, b: &Path| matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b);
        if !same(saved, &ours) {
            Model::load(saved)?.save(&ours)?;
        }
        Ok(Best::Saved(ours))
    }
}

/// Where training keeps its best validated weights: with a checkpoint directory only in
/// `<dir>/best`, read back when training ends (held in memory they would add the model's size
/// to training's peak for the whole run), else in memory.
enum Best {
    None,
    Held(Box<Model>),
    Saved(PathBuf),
}

/// Training's bookkeeping of the best validated weights.
struct Kept {
    state: TrainState,
    best: Best,
    /// Built at the first validation (runs without validation never need it).
    filter: Option<PairIndex>,
    /// The validation triples ranked ([`validation_triples`]), chosen at the first validation.
    valid: Option<Vec<Triple>>,
    /// The epoch count at the last validation.
    validated_epoch: Option<usize>,
    /// The averaged weights validation judges (weight averaging; off by default).
    average: WeightAverage,
}

/// Beside `last`: the weight average at the same epoch, for resuming with weight averaging.
const LAST_AVERAGE: &str = "last-average";

/// Half-open batch ranges over `n` shuffled pairs. A final batch of one example is merged into
/// the previous batch (BatchNorm needs two examples in training mode; the reference crashes on
/// it), so one batch per epoch may hold `batch_size + 1` examples.
pub fn batch_bounds(n: usize, batch_size: usize) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut s = 0;
    while s < n {
        let mut e = (s + batch_size).min(n);
        if n - e == 1 {
            e = n;
        }
        v.push((s, e));
        s = e;
    }
    v
}

fn fill_batch(batch: &mut Batch, index: &PairIndex, ids: &[u32]) {
    batch.clear();
    for &i in ids {
        let (h, r) = index.pairs[i as usize];
        batch.push(h, r, index.tails_of(i as usize));
    }
}

#[cfg(test)]
mod tests {
    use super::batch_bounds;

    #[test]
    fn final_singleton_batch_is_merged() {
        assert_eq!(batch_bounds(5, 2), vec![(0, 2), (2, 5)]);
        assert_eq!(batch_bounds(4, 2), vec![(0, 2), (2, 4)]);
        assert_eq!(batch_bounds(3, 128), vec![(0, 3)]);
        assert_eq!(batch_bounds(257, 128), vec![(0, 128), (128, 257)]);
    }
}
