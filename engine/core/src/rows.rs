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

    /// The rows as an owned vector, copied out of the mapping first if need be.
    pub fn make_owned(&mut self) -> &mut Vec<T> {
        if let Storage::Mapped { .. } = self.0 {
            self.0 = Storage::Owned(self.to_vec());
        }
        match &mut self.0 {
            Storage::Owned(v) => v,
            Storage::Mapped { .. } => unreachable!("made owned above"),
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
