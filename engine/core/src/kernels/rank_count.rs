//! The counting pass of filtered ranking: how many scores of a row are above, and how many
//! equal to, the answer's score.

use crate::real::Real;

multiversion!(pub fn count_greater_equal<T>(scores: &[T], s: T) -> (usize, usize) => count_body);

/// `(#{v > s}, #{v == s})` over `scores`. 32-bit counters (a row is far below 2^32 entries)
/// fill twice the vector lanes of `usize` ones; integer sums vectorise in any order.
#[inline(always)]
fn count_body<T: Real>(scores: &[T], s: T) -> (usize, usize) {
    let (mut gt, mut eq) = (0u32, 0u32);
    for &v in scores {
        gt += (v > s) as u32;
        eq += (v == s) as u32;
    }
    (gt as usize, eq as usize)
}

#[cfg(test)]
mod tests {
    use super::count_greater_equal;

    #[test]
    fn counts_match_a_plain_loop_with_ties_and_remainders() {
        for n in [0usize, 1, 15, 16, 17, 100, 1000] {
            let scores: Vec<f32> = (0..n).map(|i| ((i * 37) % 11) as f32 - 5.0).collect();
            for s in [-6.0f32, -5.0, 0.0, 2.5, 5.0] {
                let gt = scores.iter().filter(|&&v| v > s).count();
                let eq = scores.iter().filter(|&&v| v == s).count();
                assert_eq!(count_greater_equal(&scores, s), (gt, eq), "n {n}, s {s}");
            }
        }
    }
}
