//! Weight averaging: an exponential moving average of the trained weights, taken after every
//! epoch. Validation judges the average and the kept model is the average, so the model users get
//! is smoothed over the last few epochs' noise instead of being one step's weights. The trained
//! weights (and Adam) go on unchanged; BatchNorm's running statistics are averaged the same way.

use crate::params::{BatchNorm, Params};

/// The running average of one training run (none until the first epoch ends).
pub struct WeightAverage {
    /// Share of the way the average moves to the trained weights after each epoch (0 = off).
    rate: f32,
    average: Option<Params<f32>>,
}

impl WeightAverage {
    /// `rate` 0 turns averaging off; `resumed` is the average saved by an interrupted run.
    pub fn new(rate: f64, resumed: Option<Params<f32>>) -> Self {
        WeightAverage {
            rate: rate as f32,
            average: resumed.filter(|_| rate > 0.0),
        }
    }

    pub fn is_on(&self) -> bool {
        self.rate > 0.0
    }

    /// After an epoch: `average += rate * (params - average)` for every tensor; the first epoch's
    /// weights start it.
    pub fn update(&mut self, params: &Params<f32>) {
        if !self.is_on() {
            return;
        }
        let rate = self.rate;
        let Some(average) = &mut self.average else {
            self.average = Some(params.clone());
            return;
        };
        let blend = |a: &mut [f32], p: &[f32]| {
            for (x, &y) in a.iter_mut().zip(p) {
                *x += rate * (y - *x);
            }
        };
        for (a, p) in average.trainable_mut().into_iter().zip(params.trainable()) {
            blend(a, p);
        }
        let running = |b: &mut BatchNorm<f32>, p: &BatchNorm<f32>| {
            blend(&mut b.running_mean, &p.running_mean);
            blend(&mut b.running_var, &p.running_var);
        };
        running(&mut average.bn0, &params.bn0);
        running(&mut average.bn1, &params.bn1);
    }

    /// The weights to judge and keep: the average once there is one, else `params`.
    pub fn judged<'a>(&'a self, params: &'a Params<f32>) -> &'a Params<f32> {
        self.average.as_ref().unwrap_or(params)
    }

    /// The average, for checkpoints (none when off or before the first epoch).
    pub fn average(&self) -> Option<&Params<f32>> {
        self.average.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn params(seed: u64) -> Params<f32> {
        Params::init(
            &Config {
                d_e: 4,
                d_r: 3,
                seed,
                ..Config::default()
            },
            5,
            2,
        )
    }

    #[test]
    fn the_average_follows_its_formula() {
        let (p0, p1, p2) = (params(1), params(2), params(3));
        let mut avg = WeightAverage::new(0.25, None);
        assert!(
            std::ptr::eq(avg.judged(&p0), &p0),
            "no average before an epoch"
        );
        avg.update(&p0);
        avg.update(&p1);
        let mut p2 = p2;
        p2.bn1.running_var[2] = 9.0;
        avg.update(&p2);
        let got = avg.judged(&p0);
        // a1 = p0 + 0.25 (p1 - p0); a2 = a1 + 0.25 (p2 - a1), element by element.
        let want = |x0: f32, x1: f32, x2: f32| {
            let a1 = x0 + 0.25 * (x1 - x0);
            a1 + 0.25 * (x2 - a1)
        };
        for k in 0..p0.e.len() {
            assert!((got.e[k] - want(p0.e[k], p1.e[k], p2.e[k])).abs() < 1e-6);
        }
        for k in 0..p0.w.len() {
            assert!((got.w[k] - want(p0.w[k], p1.w[k], p2.w[k])).abs() < 1e-6);
        }
        assert!((got.bn1.running_var[2] - want(1.0, 1.0, 9.0)).abs() < 1e-6);
    }

    #[test]
    fn off_keeps_the_trained_weights() {
        let p = params(1);
        let mut avg = WeightAverage::new(0.0, Some(params(2)));
        avg.update(&params(3));
        assert!(avg.average().is_none());
        assert!(std::ptr::eq(avg.judged(&p), &p));
    }
}
