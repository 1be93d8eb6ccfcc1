//! `throttle`'s rule: pass one message per period, judged by the header stamps (simulation
//! time), for interfaces Gazebo publishes faster than a real driver (the JointStatePublisher
//! system publishes every physics step, 1 kHz; the UGV declares 50 Hz).

/// Decides, stamp by stamp, which messages pass.
#[derive(Debug, Clone)]
pub struct StampThrottle {
    period_ns: i64,
    tolerance_ns: i64,
    last_passed_ns: Option<i64>,
}

impl StampThrottle {
    /// A throttle to `rate_hz` for an input published at `input_rate_hz` (`gz_rate`; 0 if
    /// unknown). A stamp up to half an input period early still counts as on time, so a 1 kHz
    /// input throttled to 50 Hz passes exactly every 20th message despite rounding in stamps.
    pub fn new(rate_hz: f64, input_rate_hz: f64) -> Self {
        let period_ns = (1e9 / rate_hz).round() as i64;
        let tolerance_ns = if input_rate_hz > 0.0 {
            ((0.5e9 / input_rate_hz).round() as i64).min(period_ns / 2)
        } else {
            period_ns / 100
        };
        Self {
            period_ns,
            tolerance_ns,
            last_passed_ns: None,
        }
    }

    /// Whether the message stamped `stamp_ns` passes. A stamp earlier than the last passed one
    /// (the simulation was reset) restarts the throttle.
    pub fn pass(&mut self, stamp_ns: i64) -> bool {
        let pass = match self.last_passed_ns {
            None => true,
            Some(last) if stamp_ns < last => true,
            Some(last) => stamp_ns - last >= self.period_ns - self.tolerance_ns,
        };
        if pass {
            self.last_passed_ns = Some(stamp_ns);
        }
        pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_kilohertz_to_fifty_hertz() {
        let mut throttle = StampThrottle::new(50.0, 1000.0);
        let passed: Vec<i64> = (0..1000)
            .map(|i| i * 1_000_000)
            .filter(|&t| throttle.pass(t))
            .collect();
        assert_eq!(passed.len(), 50);
        assert!(passed.windows(2).all(|w| w[1] - w[0] == 20_000_000));
    }

    #[test]
    fn jittered_stamps_still_pass_every_period() {
        let mut throttle = StampThrottle::new(50.0, 1000.0);
        // Stamps off the grid by up to ±0.3 ms.
        let stamps = (0..1000).map(|i: i64| i * 1_000_000 + ((i * 7919) % 600_000) - 300_000);
        let passed = stamps.filter(|&t| throttle.pass(t)).count();
        assert!((49..=51).contains(&passed), "{passed}");
    }

    #[test]
    fn a_reset_clock_restarts() {
        let mut throttle = StampThrottle::new(10.0, 0.0);
        assert!(throttle.pass(5_000_000_000));
        assert!(!throttle.pass(5_050_000_000));
        assert!(throttle.pass(1_000_000), "time went backwards");
        assert!(!throttle.pass(2_000_000));
    }
}
