//! `navsat_adapter`'s transform: the frame (Gazebo Harmonic's NavSat system sets none), the
//! DIAGONAL_KNOWN position covariance, STATUS_FIX / SERVICE_GPS; the faults `deny` (no fix:
//! STATUS_NO_FIX, NaN position, unknown covariance) and `offset_enu_m` (metres east, north, up
//! added to every fix at its latitude).

use fieldproof_msgs::sensor_msgs::{NavSatFix, NavSatStatus};

/// WGS 84 semi-major axis, m.
const WGS84_A: f64 = 6_378_137.0;
/// WGS 84 first eccentricity squared.
const WGS84_E2: f64 = 6.694_379_990_14e-3;

/// What the adapter writes into every fix.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NavSatAdapter {
    /// The receiver's frame.
    pub frame_id: String,
    /// `noise.horizontal_stddev_m`.
    pub horizontal_stddev_m: f64,
    /// `noise.vertical_stddev_m`.
    pub vertical_stddev_m: f64,
    /// Fault `deny`: the receiver reports no fix.
    pub deny: bool,
    /// Fault `offset_enu_m`: east, north, up, metres.
    pub offset_enu_m: [f64; 3],
}

/// Metres per radian of latitude (meridian radius) and of longitude (parallel radius) at
/// geodetic latitude `lat_deg`, on WGS 84.
pub fn metres_per_radian(lat_deg: f64) -> (f64, f64) {
    let phi = lat_deg.to_radians();
    let w = 1.0 - WGS84_E2 * phi.sin().powi(2);
    let meridian = WGS84_A * (1.0 - WGS84_E2) / w.powf(1.5);
    let normal = WGS84_A / w.sqrt();
    (meridian, normal * phi.cos())
}

impl NavSatAdapter {
    /// The adapted fix.
    pub fn apply(&self, mut fix: NavSatFix) -> NavSatFix {
        fix.header.frame_id.clone_from(&self.frame_id);
        fix.status.service = NavSatStatus::SERVICE_GPS;
        if self.deny {
            fix.status.status = NavSatStatus::STATUS_NO_FIX;
            fix.latitude = f64::NAN;
            fix.longitude = f64::NAN;
            fix.altitude = f64::NAN;
            fix.position_covariance = [0.0; 9];
            fix.position_covariance_type = NavSatFix::COVARIANCE_TYPE_UNKNOWN;
            return fix;
        }
        fix.status.status = NavSatStatus::STATUS_FIX;
        let h = self.horizontal_stddev_m.powi(2);
        let v = self.vertical_stddev_m.powi(2);
        fix.position_covariance = [h, 0.0, 0.0, 0.0, h, 0.0, 0.0, 0.0, v];
        fix.position_covariance_type = NavSatFix::COVARIANCE_TYPE_DIAGONAL_KNOWN;
        let [east, north, up] = self.offset_enu_m;
        if east != 0.0 || north != 0.0 {
            let (per_rad_lat, per_rad_lon) = metres_per_radian(fix.latitude);
            fix.latitude += (north / per_rad_lat).to_degrees();
            if per_rad_lon > 0.0 {
                fix.longitude += (east / per_rad_lon).to_degrees();
            }
        }
        fix.altitude += up;
        fix
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> NavSatFix {
        NavSatFix {
            latitude: 48.0,
            longitude: 11.0,
            altitude: 500.0,
            ..Default::default()
        }
    }

    fn adapter() -> NavSatAdapter {
        NavSatAdapter {
            frame_id: "gps_link".into(),
            horizontal_stddev_m: 0.5,
            vertical_stddev_m: 1.0,
            ..Default::default()
        }
    }

    #[test]
    fn a_real_receivers_fix() {
        let fix = adapter().apply(raw());
        assert_eq!(fix.header.frame_id, "gps_link");
        assert_eq!(fix.status.status, NavSatStatus::STATUS_FIX);
        assert_eq!(fix.status.service, NavSatStatus::SERVICE_GPS);
        assert_eq!(
            fix.position_covariance_type,
            NavSatFix::COVARIANCE_TYPE_DIAGONAL_KNOWN
        );
        assert_eq!(
            fix.position_covariance,
            [0.25, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            (fix.latitude, fix.longitude, fix.altitude),
            (48.0, 11.0, 500.0)
        );
    }

    #[test]
    fn deny_reports_no_fix() {
        let fix = NavSatAdapter {
            deny: true,
            ..adapter()
        }
        .apply(raw());
        assert_eq!(fix.status.status, NavSatStatus::STATUS_NO_FIX);
        assert!(fix.latitude.is_nan() && fix.longitude.is_nan() && fix.altitude.is_nan());
        assert_eq!(
            fix.position_covariance_type,
            NavSatFix::COVARIANCE_TYPE_UNKNOWN
        );
    }

    #[test]
    fn offset_moves_the_fix_by_metres_at_its_latitude() {
        let fix = NavSatAdapter {
            offset_enu_m: [100.0, 200.0, 3.0],
            ..adapter()
        }
        .apply(raw());
        // At 48° N one degree of latitude is ~111.2 km and of longitude ~74.6 km (WGS 84).
        let north_m = (fix.latitude - 48.0) * 111_238.0;
        let east_m = (fix.longitude - 11.0) * 74_628.0;
        assert!((north_m - 200.0).abs() < 0.2, "{north_m}");
        assert!((east_m - 100.0).abs() < 0.2, "{east_m}");
        assert!((fix.altitude - 503.0).abs() < 1e-9);
    }

    #[test]
    fn equator_radii() {
        let (lat, lon) = metres_per_radian(0.0);
        assert!((lat - 6_335_439.0).abs() < 1.0);
        assert!((lon - WGS84_A).abs() < 1e-6);
    }
}
