//! The learning rate per epoch: exponential decay, `lr · decay^epoch`, or, under a time limit,
//! the same total decay stretched over the epochs that will actually fit (so a run whose epochs
//! turn out slower or faster than planned still anneals to its planned final rate at its end).

/// The lr of the epoch that follows `epoch` completed epochs, as planned.
pub fn planned_lr(lr: f64, decay: f64, epoch: usize) -> f64 {
    lr * decay.powi(epoch as i32)
}

/// The lr of the epoch that follows `epoch` completed epochs when the run, which started (or
/// resumed) after `start` epochs and was planned to end after `epochs`, is now projected to
/// end after `projected_end` epochs: the planned decay from `start` to `epochs` is spread over
/// `start..projected_end`. Equal to [`planned_lr`] when `projected_end == epochs`.
pub fn stretched_lr(
    lr: f64,
    decay: f64,
    epochs: usize,
    start: usize,
    epoch: usize,
    projected_end: usize,
) -> f64 {
    let planned = epochs.saturating_sub(start) as f64;
    let projected = projected_end.saturating_sub(start).max(1) as f64;
    let progress = epoch.saturating_sub(start) as f64 * planned / projected;
    lr * decay.powf(start as f64 + progress)
}

/// Epochs projected to end the run: those done plus as many more as fit in `seconds_left` at
/// `seconds_per_epoch` (validations included), at least one more and at most `epochs`.
pub fn projected_end(
    epoch: usize,
    epochs: usize,
    seconds_left: f64,
    seconds_per_epoch: f64,
) -> usize {
    // `as` saturates, so a huge quotient is simply "all of them".
    let more = (seconds_left.max(0.0) / seconds_per_epoch.max(1e-9)) as usize;
    epoch
        .saturating_add(more)
        .clamp(epoch + 1, epochs.max(epoch + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn the_plan_is_kept_when_the_projection_matches_it() {
        for epoch in 0..20 {
            assert!(close(
                stretched_lr(0.01, 0.9, 20, 0, epoch, 20),
                planned_lr(0.01, 0.9, epoch)
            ));
            // Resumed after 5 epochs, same plan.
            assert!(close(
                stretched_lr(0.01, 0.9, 20, 5, epoch.max(5), 20),
                planned_lr(0.01, 0.9, epoch.max(5))
            ));
        }
    }

    #[test]
    fn fewer_epochs_than_planned_reach_the_same_final_rate() {
        // Planned 40 epochs from 0.01 to 0.001; only 20 fit: the 20th (index 19) gets the rate
        // the plan's 40th (index 39) would have had, up to one projected step.
        let decay = 0.1f64.powf(1.0 / 40.0);
        let last = stretched_lr(0.01, decay, 40, 0, 19, 20);
        assert!(close(last, 0.01 * decay.powf(19.0 * 2.0)));
        assert!(last < planned_lr(0.01, decay, 19));
        // Resumed after 10: the rate at the resume point is the plan's, then it decays faster.
        assert!(close(
            stretched_lr(0.01, decay, 40, 10, 10, 20),
            planned_lr(0.01, decay, 10)
        ));
        assert!(close(
            stretched_lr(0.01, decay, 40, 10, 15, 20),
            0.01 * decay.powf(10.0 + 5.0 * 3.0)
        ));
    }

    #[test]
    fn the_projection_counts_what_fits_within_the_plan() {
        assert_eq!(projected_end(3, 40, 100.0, 10.0), 13);
        assert_eq!(projected_end(3, 10, 100.0, 10.0), 10);
        // Out of time: the current epoch is still counted.
        assert_eq!(projected_end(3, 40, -5.0, 10.0), 4);
        assert_eq!(projected_end(3, 40, 100.0, 0.0), 40);
    }
}
