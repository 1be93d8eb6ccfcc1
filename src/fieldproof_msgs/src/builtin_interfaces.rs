//! `builtin_interfaces`: Time and Duration.

use serde::{Deserialize, Serialize};

const NANOS_PER_SEC: i64 = 1_000_000_000;

macro_rules! sec_nanosec {
    ($ty:ident, $doc:literal) => {
        #[doc = $doc]
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            PartialOrd,
            Ord,
            Hash,
            Default,
            Serialize,
            Deserialize,
        )]
        pub struct $ty {
            /// Whole seconds (may be negative).
            pub sec: i32,
            /// Nanoseconds added to `sec`, in `0..1_000_000_000`.
            pub nanosec: u32,
        }

        impl $ty {
            /// Builds from seconds and nanoseconds as given.
            pub const fn new(sec: i32, nanosec: u32) -> Self {
                Self { sec, nanosec }
            }

            /// Splits `nanos` into `sec` (floored) and `nanosec` in `0..1e9`; saturates at the
            /// range of `sec` (i32 seconds, about year 2038).
            pub fn from_nanos(nanos: i64) -> Self {
                let sec = nanos.div_euclid(NANOS_PER_SEC);
                if sec > i64::from(i32::MAX) {
                    return Self {
                        sec: i32::MAX,
                        nanosec: 999_999_999,
                    };
                }
                if sec < i64::from(i32::MIN) {
                    return Self {
                        sec: i32::MIN,
                        nanosec: 0,
                    };
                }
                Self {
                    sec: sec as i32,
                    nanosec: nanos.rem_euclid(NANOS_PER_SEC) as u32,
                }
            }

            /// Total nanoseconds `sec * 1e9 + nanosec`.
            pub fn to_nanos(&self) -> i64 {
                i64::from(self.sec) * NANOS_PER_SEC + i64::from(self.nanosec)
            }

            /// From seconds as a float, rounded to the nearest nanosecond (NaN gives zero,
            /// out-of-range values saturate).
            pub fn from_secs_f64(secs: f64) -> Self {
                // `as` saturates and maps NaN to 0.
                Self::from_nanos((secs * 1e9).round() as i64)
            }

            /// Seconds as a float.
            pub fn as_secs_f64(&self) -> f64 {
                f64::from(self.sec) + f64::from(self.nanosec) * 1e-9
            }
        }
    };
}

sec_nanosec!(
    Time,
    "`builtin_interfaces/msg/Time`: a point in time (seconds since the epoch, or sim time)."
);
sec_nanosec!(
    Duration,
    "`builtin_interfaces/msg/Duration`: a signed time span."
);

crate::ros_message!(Time, "builtin_interfaces/msg/Time");
crate::ros_message!(Duration, "builtin_interfaces/msg/Duration");

impl From<std::time::Duration> for Duration {
    /// Saturates at `i32::MAX` seconds.
    fn from(d: std::time::Duration) -> Self {
        Self::from_nanos(i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
    }
}

impl From<std::time::SystemTime> for Time {
    /// Times before the epoch become negative `sec`.
    fn from(t: std::time::SystemTime) -> Self {
        match t.duration_since(std::time::UNIX_EPOCH) {
            Ok(d) => Self::from_nanos(i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)),
            Err(e) => Self::from_nanos(-i64::try_from(e.duration().as_nanos()).unwrap_or(i64::MAX)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nanos_round_trip_including_negative() {
        for n in [
            0i64,
            1,
            999_999_999,
            1_000_000_000,
            1_700_000_000_123_456_789,
            -1,
            -1_500_000_000,
        ] {
            let t = Time::from_nanos(n);
            assert!(t.nanosec < 1_000_000_000);
            assert_eq!(t.to_nanos(), n, "{t:?}");
        }
        assert_eq!(
            Time::from_nanos(-1),
            Time {
                sec: -1,
                nanosec: 999_999_999
            }
        );
        assert_eq!(
            Duration::from_nanos(-1_500_000_000),
            Duration {
                sec: -2,
                nanosec: 500_000_000
            }
        );
    }

    #[test]
    fn saturates_outside_i32_seconds() {
        assert_eq!(Time::from_nanos(i64::MAX).sec, i32::MAX);
        assert_eq!(
            Time::from_nanos(i64::MIN),
            Time {
                sec: i32::MIN,
                nanosec: 0
            }
        );
        assert_eq!(Time::from_secs_f64(f64::NAN), Time::default());
    }

    #[test]
    fn float_seconds() {
        let t = Time::from_secs_f64(12.25);
        assert_eq!(
            t,
            Time {
                sec: 12,
                nanosec: 250_000_000
            }
        );
        assert_eq!(t.as_secs_f64(), 12.25);
        assert_eq!(
            Time::from_secs_f64(-0.25),
            Time {
                sec: -1,
                nanosec: 750_000_000
            }
        );
        assert_eq!(Time::from_secs_f64(-0.25).as_secs_f64(), -0.25);
        // Rounded to the nearest nanosecond, not truncated.
        assert_eq!(Time::from_secs_f64(0.1).nanosec, 100_000_000);
    }

    #[test]
    fn from_std() {
        let d = Duration::from(std::time::Duration::from_millis(1500));
        assert_eq!(
            d,
            Duration {
                sec: 1,
                nanosec: 500_000_000
            }
        );
        let t = Time::from(std::time::UNIX_EPOCH + std::time::Duration::from_secs(7));
        assert_eq!(t, Time { sec: 7, nanosec: 0 });
    }
}
