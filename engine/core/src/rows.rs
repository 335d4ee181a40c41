//! The entity matrix's storage: owned, or read in place from a saved model's memory map.
//!
//! A served version at a million entities keeps its entity matrix (800 MB at d_e 200) in the
//! page cache that its file mapping already holds, instead of a second, private copy: loading
//! copies nothing, and two versions resident during a hot swap cost their files, once. Writing
//! (training, fold-in's appended rows) first makes the rows owned: a mapped matrix is never
//! written through.

use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// Bytes that stay valid and unchanged while shared (a read-only file mapping).
pub type SharedBytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// A row-major matrix's values, owned or mapped; reads as `&[T]`, writes as `&mut [T]`.
#[derive(Clone)]
pub struct Rows<T>(Storage<T>);

#[derive(Clone)]
enum Storage<T> {
    Owned(Vec<T>),
    /// Owned once, now shared read-only by clones (a served model and those grown from it).
    Shared(Arc<Vec<T>>),
    /// `len` f32 values at byte `offset` of `bytes`, aligned (made only by [`Rows::mapped`]).
    Mapped {
        bytes: SharedBytes,
        offset: usize,
        len: usize,
    },
}

impl Rows<f32> {
    /// `len` little-endian f32 values at byte `offset` of `bytes`, read in place; None when
    /// they are not aligned for f32 or this machine is not little-endian (then copy them).
    pub fn mapped(bytes: SharedBytes, offset: usize, len: usize) -> Option<Self> {
        let all = (*bytes).as_ref();
        let end = offset.checked_add(len.checked_mul(4)?)?;
        let aligned = (all.as_ptr() as usize + offset).is_multiple_of(std::mem::align_of::<f32>());
        if end > all.len() || !aligned || cfg!(target_endian = "big") {
            return None;
        }
        Some(Rows(Storage::Mapped { bytes, offset, len }))
    }
}

impl<T: Clone> Rows<T> {
    /// Whether the rows are read from a mapping (not copied).
    pub fn is_mapped(&self) -> bool {
        matches!(self.0, Storage::Mapped { .. })
    }

    /// The rows as an owned vector, copied out of the mapping or the shared vector first if
    /// need be.
    pub fn make_owned(&mut self) -> &mut Vec<T> {
        if !matches!(self.0, Storage::Owned(_)) {
            self.0 = Storage::Owned(self.to_vec());
        }
        match &mut self.0 {
            Storage::Owned(v) => v,
            _ => unreachable!("made owned above"),
        }
    }

    /// Makes clones share these rows instead of copying them (a write copies them again).
    pub fn share(&mut self) {
        if let Storage::Owned(v) = &mut self.0 {
            self.0 = Storage::Shared(Arc::new(std::mem::take(v)));
        }
    }

    pub fn extend_from_slice(&mut self, rows: &[T]) {
        self.make_owned().extend_from_slice(rows);
    }
}

impl<T> Deref for Rows<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match &self.0 {
            Storage::Owned(v) => v,
            Storage::Shared(v) => v,
            Storage::Mapped { bytes, offset, len } => {
                assert_eq!(std::mem::size_of::<T>(), 4, "only f32 rows are mapped");
                let all = (**bytes).as_ref();
                // SAFETY: only `Rows::<f32>::mapped` makes this variant, after checking that
                // `len` f32 values fit at an aligned `offset`; the bytes are shared read-only
                // and live as long as `self` holds the Arc.
                unsafe { std::slice::from_raw_parts(all.as_ptr().add(*offset).cast::<T>(), *len) }
            }
        }
    }
}

impl<T: Clone> DerefMut for Rows<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.make_owned()
    }
}

impl<T> From<Vec<T>> for Rows<T> {
    fn from(v: Vec<T>) -> Self {
        Rows(Storage::Owned(v))
    }
}

impl<T: PartialEq> PartialEq for Rows<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T> fmt::Debug for Rows<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.0 {
            Storage::Owned(_) => "owned",
            Storage::Shared(_) => "shared",
            Storage::Mapped { .. } => "mapped",
        };
        write!(f, "Rows({kind}, {} values)", self.len())
    }
}

impl<'a, T> IntoIterator for &'a Rows<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Every entity's row, read where it lives: the trained matrix's `n x d` rows, then the rows
/// appended after training (fold-in) kept beside it, ids `n..`. Scans read the trained rows as
/// one slice and score the appended ones apart, so growing a model copies neither.
#[derive(Clone, Copy, Debug)]
pub struct EntityRows<'a> {
    trained: &'a [f32],
    appended: &'a [f32],
    d: usize,
}

impl<'a> EntityRows<'a> {
    /// `trained` and `appended` are row-major with `d` values a row.
    pub fn new(trained: &'a [f32], appended: &'a [f32], d: usize) -> Self {
        EntityRows {
            trained,
            appended,
            d,
        }
    }

    /// Values a row.
    pub fn width(&self) -> usize {
        self.d
    }

    /// Rows of the trained matrix (ids `0..trained_len()`).
    pub fn trained_len(&self) -> usize {
        self.trained.len() / self.d.max(1)
    }

    /// Every row, appended ones included.
    pub fn len(&self) -> usize {
        self.trained_len() + self.appended.len() / self.d.max(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The trained matrix's values (`trained_len() x d`).
    pub fn trained(&self) -> &'a [f32] {
        self.trained
    }

    /// The appended rows' ids.
    pub fn appended_ids(&self) -> std::ops::Range<u32> {
        self.trained_len() as u32..self.len() as u32
    }

    /// Row `e` (`d` values); panics when out of range, as indexing does.
    pub fn row(&self, e: u32) -> &'a [f32] {
        let (e, n, d) = (e as usize, self.trained_len(), self.d);
        if e < n {
            &self.trained[e * d..][..d]
        } else {
            &self.appended[(e - n) * d..][..d]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes_of(values: &[f32]) -> SharedBytes {
        Arc::new(
            values
                .iter()
                .flat_map(|v| v.to_le_bytes())
                .collect::<Vec<u8>>(),
        )
    }

    #[test]
    fn shared_rows_are_not_copied_by_a_clone_and_are_copied_before_a_write() {
        let mut rows = Rows::from(vec![1.0f32, 2.0]);
        rows.share();
        let mut copy = rows.clone();
        assert_eq!(rows.as_ptr(), copy.as_ptr());
        copy[0] = 5.0;
        assert_ne!(rows.as_ptr(), copy.as_ptr());
        assert_eq!((&rows[..], &copy[..]), (&[1.0, 2.0][..], &[5.0, 2.0][..]));
    }

    #[test]
    fn entity_rows_read_trained_rows_then_appended_ones() {
        let rows = EntityRows::new(&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0], 2);
        assert_eq!((rows.trained_len(), rows.len()), (2, 3));
        assert_eq!(rows.row(1), &[3.0, 4.0]);
        assert_eq!(rows.row(2), &[5.0, 6.0]);
        assert_eq!(rows.appended_ids(), 2..3);
    }

    #[test]
    fn reads_mapped_values_in_place_and_copies_before_a_write() {
        let bytes = bytes_of(&[1.0, 2.0, 3.0, 4.0]);
        let mut rows = Rows::mapped(bytes.clone(), 4, 2).expect("aligned and in range");
        assert!(rows.is_mapped());
        assert_eq!(&rows[..], &[2.0, 3.0]);
        rows[1] = 9.0;
        assert!(!rows.is_mapped());
        assert_eq!(&rows[..], &[2.0, 9.0]);
        assert_eq!(&(*bytes).as_ref()[8..12], &3.0f32.to_le_bytes());
    }

    #[test]
    fn refuses_values_out_of_range_or_misaligned() {
        let bytes = bytes_of(&[1.0, 2.0]);
        assert!(Rows::mapped(bytes.clone(), 4, 2).is_none());
        assert!(Rows::mapped(bytes.clone(), usize::MAX, 1).is_none());
        assert!(Rows::mapped(bytes, 1, 1).is_none());
    }
}
