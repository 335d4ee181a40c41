//! A batch's index lists for the device kernels, built on the host (a few microseconds): the
//! distinct relations and their examples, the distinct heads and their examples, and the
//! positive tails, all as u32.

use neptune_core::net::Batch;

#[derive(Default)]
pub struct BatchLayout {
    pub heads: Vec<u32>,
    /// `uniq[u]` is the u-th distinct relation, `group[b] = u`; the examples of `u` are
    /// `rel_members[rel_off[u]..rel_off[u + 1]]` in batch order.
    pub uniq: Vec<u32>,
    pub group: Vec<u32>,
    pub rel_members: Vec<u32>,
    pub rel_off: Vec<u32>,
    /// The same for heads: `head_members[head_off[k]..head_off[k + 1]]` are the examples whose
    /// head is `head_targets[k]`.
    pub head_targets: Vec<u32>,
    pub head_members: Vec<u32>,
    pub head_off: Vec<u32>,
    /// Positive tails of example `b`: `tails[tail_off[b]..tail_off[b + 1]]`.
    pub tail_off: Vec<u32>,
    pub tails: Vec<u32>,
}

/// Distinct keys in first-seen order, each one's position per item, and the items of each key
/// in order (CSR), as `(distinct, position, members, offsets)`.
fn group_by(keys: &[u32]) -> (Vec<u32>, Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut slot = std::collections::HashMap::with_capacity(keys.len());
    let (mut distinct, mut position) = (Vec::new(), Vec::with_capacity(keys.len()));
    for &k in keys {
        let s = *slot.entry(k).or_insert_with(|| {
            distinct.push(k);
            distinct.len() as u32 - 1
        });
        position.push(s);
    }
    let mut off = vec![0u32; distinct.len() + 1];
    for &s in &position {
        off[s as usize + 1] += 1;
    }
    for u in 0..distinct.len() {
        off[u + 1] += off[u];
    }
    let mut cursor = off.clone();
    let mut members = vec![0u32; keys.len()];
    for (b, &s) in position.iter().enumerate() {
        members[cursor[s as usize] as usize] = b as u32;
        cursor[s as usize] += 1;
    }
    (distinct, position, members, off)
}

impl BatchLayout {
    pub fn new(batch: &Batch) -> Self {
        let (uniq, group, rel_members, rel_off) = group_by(&batch.rels);
        let (head_targets, _, head_members, head_off) = group_by(&batch.heads);
        BatchLayout {
            heads: batch.heads.clone(),
            uniq,
            group,
            rel_members,
            rel_off,
            head_targets,
            head_members,
            head_off,
            tail_off: batch.offsets.iter().map(|&o| o as u32).collect(),
            tails: batch.tails.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_in_first_seen_order_with_members_in_batch_order() {
        let (d, pos, mem, off) = group_by(&[7, 3, 7, 9, 3, 7]);
        assert_eq!(d, vec![7, 3, 9]);
        assert_eq!(pos, vec![0, 1, 0, 2, 1, 0]);
        assert_eq!(off, vec![0, 3, 5, 6]);
        assert_eq!(mem, vec![0, 2, 5, 1, 4, 3]);
    }
}
