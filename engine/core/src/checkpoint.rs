//! Checkpoints: a directory with `model.safetensors` (every tensor, f32, little-endian; Adam
//! moments too when saved for resuming) and `manifest.json` (vocabularies, config, metrics,
//! training state, engine version, and the SHA-256 and size of the tensor file).
//!
//! Loading verifies the checksum, the format version, every tensor's dtype and shape against the
//! config and vocabularies, and refuses anything else with [`Error::Checkpoint`]. Saving writes
//! both files under temporary names and renames them, the manifest last; a reader racing a save
//! sees either the old manifest (whose checksum then fails) or the complete new checkpoint.

use crate::config::Config;
use crate::error::{Error, Result};
use crate::eval::Metrics;
use crate::model::Model;
use crate::params::{BatchNorm, Params, N_TRAINABLE, TRAINABLE_NAMES};
use crate::rows::{Rows, SharedBytes};
use memmap2::{Advice, Mmap, MmapOptions, UncheckedAdvice};
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

pub const FORMAT: &str = "neptune-checkpoint";
pub const FORMAT_VERSION: u32 = 1;
pub const TENSORS_FILE: &str = "model.safetensors";
pub const MANIFEST_FILE: &str = "manifest.json";

/// Where training stands, for resuming.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainState {
    /// Epochs completed.
    pub epoch: usize,
    /// Best validation MRR so far and the epoch count it was reached at.
    pub best_mrr: Option<f64>,
    pub best_epoch: usize,
    /// Validations since the best one (early stopping).
    pub evals_since_best: usize,
    /// Every validation MRR so far, oldest first (early stopping's trend test).
    #[serde(default)]
    pub valid_mrrs: Vec<f64>,
}

#[derive(Serialize, Deserialize)]
struct Manifest {
    format: String,
    format_version: u32,
    engine_version: String,
    config: Config,
    n_entities: usize,
    n_relations: usize,
    model_relations: usize,
    epoch: usize,
    valid_metrics: Option<Metrics>,
    train_state: Option<TrainState>,
    has_optimizer_state: bool,
    adam_step: u64,
    tensors_file: String,
    tensors_bytes: u64,
    tensors_sha256: String,
    entities: Vec<String>,
    relations: Vec<String>,
}

/// Adam's state as saved for resuming: first and second moments per trainable tensor (in
/// [`TRAINABLE_NAMES`] order) and the step count. The optimizer itself is training code
/// (`crate::adam`); this layer only stores its numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct OptimizerState {
    pub m: [Vec<f32>; N_TRAINABLE],
    pub v: [Vec<f32>; N_TRAINABLE],
    pub step: u64,
}

/// [`OptimizerState`] borrowed, to save without copying the moments.
#[derive(Clone, Copy, Debug)]
pub struct OptimizerStateRef<'a> {
    pub m: &'a [Vec<f32>; N_TRAINABLE],
    pub v: &'a [Vec<f32>; N_TRAINABLE],
    pub step: u64,
}

/// A loaded checkpoint: the model plus, when saved, what is needed to resume training.
pub struct Checkpoint {
    pub model: Model,
    pub optimizer: Option<OptimizerState>,
    pub train_state: Option<TrainState>,
}

fn shapes(p: &Params<f32>) -> Vec<(String, Vec<usize>)> {
    let (n, nr, d, dr) = (p.n_ent, p.n_rel, p.d_e, p.d_r);
    let tr: [Vec<usize>; 8] = [
        vec![n, d],
        vec![nr, dr],
        vec![dr, d, d],
        vec![d],
        vec![d],
        vec![d],
        vec![d],
        vec![1],
    ];
    let mut v: Vec<(String, Vec<usize>)> = TRAINABLE_NAMES
        .iter()
        .map(|s| s.to_string())
        .zip(tr)
        .collect();
    for k in [
        "bn0.running_mean",
        "bn0.running_var",
        "bn1.running_mean",
        "bn1.running_var",
    ] {
        v.push((k.to_string(), vec![d]));
    }
    v
}

/// `v` as stored (f32, little-endian): a view of its memory where that is the layout, so
/// saving never holds a second copy of the weights (Adam's moments included: 3x the model).
fn le_bytes(v: &[f32]) -> Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        Cow::Borrowed(bytemuck::cast_slice(v))
    } else {
        Cow::Owned(v.iter().flat_map(|x| x.to_le_bytes()).collect())
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 and size of the file at `path`, read in blocks.
fn file_digest(path: &Path) -> Result<(String, u64)> {
    let mut file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    let (mut hasher, mut block, mut size) = (Sha256::new(), vec![0u8; 1 << 20], 0u64);
    loop {
        let read = file.read(&mut block).map_err(|e| Error::io(path, e))?;
        if read == 0 {
            return Ok((hex(&hasher.finalize()), size));
        }
        hasher.update(&block[..read]);
        size += read as u64;
    }
}

/// What a checkpoint stores of a model, borrowed: training saves its live weights through this
/// without cloning them into a [`Model`].
#[derive(Clone, Copy)]
pub struct ModelRef<'a> {
    pub config: &'a Config,
    pub params: &'a Params<f32>,
    pub entities: &'a [String],
    pub relations: &'a [String],
    pub epoch: usize,
    pub valid_metrics: Option<&'a Metrics>,
}

impl Model {
    /// This model as [`save`] reads it; refused for a model grown by fold-in.
    pub fn as_saved(&self) -> Result<ModelRef<'_>> {
        self.check_trained("saving")?;
        Ok(ModelRef {
            config: &self.config,
            params: &self.params,
            entities: &self.entities,
            relations: &self.relations,
            epoch: self.epoch,
            valid_metrics: self.valid_metrics.as_ref(),
        })
    }
}

/// Writes `model` (and `optimizer` / `state` for resuming) into `dir`, creating it if needed.
/// The tensors stream to the file from the weights' own memory; the checksum is read back.
pub fn save(
    dir: &Path,
    model: ModelRef<'_>,
    optimizer: Option<OptimizerStateRef<'_>>,
    state: Option<&TrainState>,
) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let p = model.params;
    let mut data: Vec<(String, Vec<usize>, Cow<'_, [u8]>)> = Vec::new();
    let running = [
        &p.bn0.running_mean,
        &p.bn0.running_var,
        &p.bn1.running_mean,
        &p.bn1.running_var,
    ];
    let tensors: Vec<&[f32]> = p
        .trainable()
        .into_iter()
        .chain(running.map(Vec::as_slice))
        .collect();
    for ((name, shape), t) in shapes(p).into_iter().zip(tensors) {
        data.push((name, shape, le_bytes(t)));
    }
    if let Some(a) = optimizer {
        for (i, (name, shape)) in shapes(p)
            .into_iter()
            .take(TRAINABLE_NAMES.len())
            .enumerate()
        {
            data.push((format!("adam.m.{name}"), shape.clone(), le_bytes(&a.m[i])));
            data.push((format!("adam.v.{name}"), shape, le_bytes(&a.v[i])));
        }
    }
    let views: Vec<(String, TensorView<'_>)> = data
        .iter()
        .map(|(n, s, b)| {
            Ok((
                n.clone(),
                TensorView::new(Dtype::F32, s.clone(), b)
                    .map_err(|e| Error::checkpoint(dir, e.to_string()))?,
            ))
        })
        .collect::<Result<_>>()?;
    let tensors_tmp = dir.join(format!("{TENSORS_FILE}.tmp"));
    safetensors::tensor::serialize_to_file(views, &None, &tensors_tmp)
        .map_err(|e| Error::checkpoint(dir, e.to_string()))?;
    let (tensors_sha256, tensors_bytes) = file_digest(&tensors_tmp)?;
    let manifest = Manifest {
        format: FORMAT.into(),
        format_version: FORMAT_VERSION,
        engine_version: crate::ENGINE_VERSION.into(),
        config: model.config.clone(),
        n_entities: p.n_ent,
        n_relations: model.relations.len(),
        model_relations: p.n_rel,
        epoch: model.epoch,
        valid_metrics: model.valid_metrics.cloned(),
        train_state: state.cloned(),
        has_optimizer_state: optimizer.is_some(),
        adam_step: optimizer.map_or(0, |a| a.step),
        tensors_file: TENSORS_FILE.into(),
        tensors_bytes,
        tensors_sha256,
        entities: model.entities.to_vec(),
        relations: model.relations.to_vec(),
    };
    let json =
        serde_json::to_vec_pretty(&manifest).map_err(|e| Error::checkpoint(dir, e.to_string()))?;
    let tensors = dir.join(TENSORS_FILE);
    std::fs::rename(&tensors_tmp, &tensors).map_err(|e| Error::io(&tensors, e))?;
    let manifest_tmp = dir.join(format!("{MANIFEST_FILE}.tmp"));
    std::fs::write(&manifest_tmp, &json).map_err(|e| Error::io(&manifest_tmp, e))?;
    std::fs::rename(&manifest_tmp, dir.join(MANIFEST_FILE))
        .map_err(|e| Error::io(dir.join(MANIFEST_FILE), e))
}

/// The file's bytes through a read-only mapping (not empty: an empty file cannot be mapped).
/// The pages are the page cache's, not a second copy in this process's heap, and read
/// ahead in order. Model files are written once (to a temporary name, then renamed) and never
/// changed in place, so the mapping cannot change under the reader; removing the file (model
/// retention) leaves an open mapping intact.
fn map_file(path: &Path) -> Result<Mmap> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    // SAFETY: see above: nothing writes to a saved tensors file.
    let map =
        unsafe { MmapOptions::new().populate().map(&file) }.map_err(|e| Error::io(path, e))?;
    let _ = map.advise(Advice::Sequential);
    Ok(map)
}

/// Tensor `name` (F32 of `shape`, as the checkpoint must hold it) read in place from the
/// mapping, with its byte range; None when it cannot be (then it is copied, and checked there).
fn mapped_rows(
    map: &Arc<Mmap>,
    st: &SafeTensors<'_>,
    name: &str,
    shape: &[usize],
) -> Option<(Rows<f32>, std::ops::Range<usize>)> {
    let t = st.tensor(name).ok()?;
    if t.dtype() != Dtype::F32 || t.shape() != shape {
        return None;
    }
    let offset = t.data().as_ptr() as usize - map.as_ptr() as usize;
    let len = t.data().len() / 4;
    let bytes: SharedBytes = map.clone();
    let rows = Rows::mapped(bytes, offset, len)?;
    Some((rows, offset..offset + 4 * len))
}

/// Drops this process's page mappings of the file outside `keep` (the in-place rows): the
/// other tensors were copied out, and their pages, read once for the checksum, would otherwise
/// count in the process's resident memory for as long as the mapping lives.
fn release_all_but(map: &Mmap, keep: Option<std::ops::Range<usize>>) {
    let Some(keep) = keep else { return };
    for (start, end) in [(0, keep.start), (keep.end, map.len())] {
        if end > start {
            // SAFETY: the mapping is a read-only view of a file nothing writes (see map_file):
            // MADV_DONTNEED only drops page-table entries, and a later read faults the same
            // bytes back in from the file. No Rust reference into these ranges is used again
            // (their tensors were copied; E's range is kept, and a page it shares with a
            // neighbour reads back the same bytes).
            let _ = unsafe {
                map.unchecked_advise_range(UncheckedAdvice::DontNeed, start, end - start)
            };
        }
    }
}

/// Loads and verifies a checkpoint directory.
pub fn load(dir: &Path) -> Result<Checkpoint> {
    let bad = |m: String| Error::checkpoint(dir, m);
    let mpath = dir.join(MANIFEST_FILE);
    let mtext = std::fs::read(&mpath).map_err(|e| Error::io(&mpath, e))?;
    let m: Manifest = serde_json::from_slice(&mtext)
        .map_err(|e| bad(format!("{MANIFEST_FILE} is not a valid manifest: {e}")))?;
    if m.format != FORMAT || m.format_version != FORMAT_VERSION {
        return Err(bad(format!(
            "format {} v{} is not {FORMAT} v{FORMAT_VERSION}",
            m.format, m.format_version
        )));
    }
    m.config
        .validate()
        .map_err(|e| bad(format!("manifest config: {e}")))?;
    if m.entities.len() != m.n_entities || m.relations.len() != m.n_relations {
        return Err(bad(
            "vocabulary sizes do not match the manifest counts".into()
        ));
    }
    if m.model_relations != m.config.inverse_mode.model_relations(m.n_relations) {
        return Err(bad(
            "model relation count does not match the inverse-relation mode".into(),
        ));
    }
    if m.tensors_file.contains(['/', '\\']) || m.tensors_file.starts_with('.') {
        return Err(bad(format!(
            "tensors_file `{}` must be a plain file name",
            m.tensors_file
        )));
    }
    let tpath = dir.join(&m.tensors_file);
    let len = std::fs::metadata(&tpath)
        .map_err(|e| Error::io(&tpath, e))?
        .len();
    if len != m.tensors_bytes || len == 0 {
        return Err(bad(format!(
            "{} has {len} bytes, manifest says {} (truncated or replaced)",
            m.tensors_file, m.tensors_bytes
        )));
    }
    let map = Arc::new(map_file(&tpath)?);
    let bytes: &[u8] = &map;
    if bytes.len() as u64 != len {
        return Err(bad(format!("{} changed while it was read", m.tensors_file)));
    }
    if hex(&Sha256::digest(bytes)) != m.tensors_sha256 {
        return Err(bad(format!(
            "{} fails its SHA-256 check (corrupt or replaced)",
            m.tensors_file
        )));
    }
    let st =
        SafeTensors::deserialize(bytes).map_err(|e| bad(format!("{}: {e}", m.tensors_file)))?;
    let mut p = Params::<f32> {
        n_ent: m.n_entities,
        n_rel: m.model_relations,
        d_e: m.config.d_e,
        d_r: m.config.d_r,
        e: Vec::new().into(),
        r: vec![],
        w: vec![],
        bn0: BatchNorm::new(0),
        bn1: BatchNorm::new(0),
        slope: vec![],
    };
    let read = |name: &str, shape: &[usize]| -> Result<Vec<f32>> {
        let t = st
            .tensor(name)
            .map_err(|_| bad(format!("tensor `{name}` is missing")))?;
        if t.dtype() != Dtype::F32 || t.shape() != shape {
            return Err(bad(format!(
                "tensor `{name}` is {:?} {:?}, expected F32 {shape:?} from the config",
                t.dtype(),
                t.shape()
            )));
        }
        Ok(t.data()
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    };
    let sh = shapes(&p);
    // E is read in place from the mapping (the rest is small, or only for training: copied).
    let e_rows = mapped_rows(&map, &st, TRAINABLE_NAMES[0], &sh[0].1);
    let mut vals: Vec<Vec<f32>> = sh
        .iter()
        .enumerate()
        .map(|(i, (n, s))| match (&e_rows, i) {
            (Some(_), 0) => Ok(Vec::new()),
            _ => read(n, s),
        })
        .collect::<Result<_>>()?;
    let mut take = |i: usize| std::mem::take(&mut vals[i]);
    let e_range = e_rows.as_ref().map(|(_, range)| range.clone());
    p.e = match e_rows {
        Some((rows, _)) => rows,
        None => take(0).into(),
    };
    p.r = take(1);
    p.w = take(2);
    p.bn0 = BatchNorm {
        gamma: take(3),
        beta: take(4),
        running_mean: take(8),
        running_var: take(9),
    };
    p.bn1 = BatchNorm {
        gamma: take(5),
        beta: take(6),
        running_mean: take(10),
        running_var: take(11),
    };
    p.slope = take(7);
    let optimizer = if m.has_optimizer_state {
        let mut a = OptimizerState {
            m: Default::default(),
            v: Default::default(),
            step: m.adam_step,
        };
        for (i, (name, shape)) in sh.iter().take(TRAINABLE_NAMES.len()).enumerate() {
            a.m[i] = read(&format!("adam.m.{name}"), shape)?;
            a.v[i] = read(&format!("adam.v.{name}"), shape)?;
        }
        Some(a)
    } else {
        None
    };
    release_all_but(&map, e_range);
    let model = Model::new(
        m.config,
        p,
        m.entities,
        m.relations,
        m.epoch,
        m.valid_metrics,
    );
    Ok(Checkpoint {
        model,
        optimizer,
        train_state: m.train_state,
    })
}

impl Model {
    /// Saves the model (without optimizer state) into `dir`; see [`save`].
    pub fn save(&self, dir: impl AsRef<Path>) -> Result<()> {
        save(dir.as_ref(), self.as_saved()?, None, None)
    }
    /// Loads and verifies a model saved by [`Model::save`] or by training.
    pub fn load(dir: impl AsRef<Path>) -> Result<Model> {
        Ok(load(dir.as_ref())?.model)
    }
}
