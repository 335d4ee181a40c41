//! Early stopping that does not end a run still improving by more than noise.
//!
//! Patience alone stops a run after `patience` validations without a new best, even when a
//! lucky early spike set that best and the curve is still rising beneath it (validation MRR on
//! a few thousand triples moves by more than a slow run gains per epoch). So a run stops only
//! when, in addition, the least-squares slope of the validation MRRs since the best one (at
//! least three) is not above twice its standard error: the trend since the best is flat or
//! falling, or indistinguishable from noise.

/// Whether to stop after this validation. `history`: every validation MRR so far, oldest
/// first (the newest included); `evals_since_best`: validations since the best one.
pub fn should_stop(history: &[f64], evals_since_best: usize, patience: usize) -> bool {
    if patience == 0 || evals_since_best < patience {
        return false;
    }
    let window = &history[history.len().saturating_sub(evals_since_best.max(3))..];
    !rising_beyond_noise(window)
}

/// True when the slope of `ys` (at x = 0, 1, ...) exceeds twice its standard error.
fn rising_beyond_noise(ys: &[f64]) -> bool {
    let n = ys.len();
    if n < 3 {
        return false;
    }
    let nf = n as f64;
    let x_mean = (nf - 1.0) / 2.0;
    let y_mean = ys.iter().sum::<f64>() / nf;
    let sxx: f64 = (0..n).map(|i| (i as f64 - x_mean).powi(2)).sum();
    let sxy: f64 = ys
        .iter()
        .enumerate()
        .map(|(i, y)| (i as f64 - x_mean) * (y - y_mean))
        .sum();
    let slope = sxy / sxx;
    let residuals: f64 = ys
        .iter()
        .enumerate()
        .map(|(i, y)| (y - y_mean - slope * (i as f64 - x_mean)).powi(2))
        .sum();
    let standard_error = (residuals / (nf - 2.0) / sxx).sqrt();
    slope > 0.0 && slope > 2.0 * standard_error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patience_not_reached_never_stops() {
        assert!(!should_stop(&[0.3, 0.2, 0.1], 2, 3));
        assert!(!should_stop(&[0.3, 0.2, 0.1], 9, 0));
    }

    #[test]
    fn a_flat_or_falling_curve_stops_at_patience() {
        assert!(should_stop(&[0.30, 0.29, 0.28, 0.27], 3, 3));
        let flat_noisy = [0.30, 0.32, 0.31, 0.29, 0.30, 0.31, 0.29, 0.30];
        assert!(should_stop(&flat_noisy, 6, 3));
    }

    #[test]
    fn a_rising_trend_below_an_early_spike_keeps_training() {
        // A spike at 0.40, then five validations below it but rising steadily.
        let history = [0.30, 0.40, 0.31, 0.33, 0.34, 0.36, 0.37];
        assert!(!should_stop(&history, 5, 5));
        // The same spike followed by a flat tail stops.
        let flat = [0.30, 0.40, 0.34, 0.35, 0.34, 0.35, 0.34];
        assert!(should_stop(&flat, 5, 5));
    }

    #[test]
    fn the_slope_test_matches_its_formula() {
        // y = 0.01 x exactly: slope 0.01, no residual, rising.
        assert!(rising_beyond_noise(&[0.0, 0.01, 0.02, 0.03]));
        // Alternating noise of 0.05 around a 0.001 slope: not beyond noise.
        assert!(!rising_beyond_noise(&[
            0.30, 0.351, 0.302, 0.353, 0.304, 0.355
        ]));
        assert!(!rising_beyond_noise(&[0.1, 0.2]));
    }
}
