//! A model's memo: values derived from its parameters that its callers keep.

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Values derived from a model's parameters that its callers keep (fold-in's rows' spread and
/// negatives), by name and number. A clone or [`crate::Model::clear_cache`] starts empty.
#[derive(Default)]
pub(crate) struct Memo(Mutex<HashMap<MemoKey, Arc<dyn Any + Send + Sync>>>);

/// A memo entry's name and number (a seed, say).
type MemoKey = (&'static str, u64);

impl Clone for Memo {
    fn clone(&self) -> Self {
        Memo::default()
    }
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memo")
    }
}

impl Memo {
    /// The value kept under `key`, made by `make` (and kept) the first time.
    pub(crate) fn get_or_make<T: Any + Send + Sync, E>(
        &self,
        key: MemoKey,
        make: impl FnOnce() -> std::result::Result<T, E>,
    ) -> std::result::Result<Arc<T>, E> {
        let found = self.0.lock().expect("model memo").get(&key).cloned();
        if let Some(value) = found.and_then(|v| v.downcast::<T>().ok()) {
            return Ok(value);
        }
        let value = Arc::new(make()?);
        self.0
            .lock()
            .expect("model memo")
            .insert(key, value.clone());
        Ok(value)
    }
}
