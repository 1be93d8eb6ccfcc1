//! NavSat, raw as Gazebo Harmonic's NavSat system gives it: latitude, longitude and
//! altitude of the antenna from the world's geodetic origin, with the manifest's noise, no
//! frame_id (gz-sim issue 2236), unknown covariance (the navsat_adapter fills frame,
//! covariance, status and service).

use fieldproof_msgs::sensor_msgs::{NavSatFix, NavSatStatus};
use fieldproof_msgs::std_msgs::Header;
use fieldproof_robots::{geo, GeoOrigin};

use super::Output;
use crate::math::ros_time;
use crate::msg::Msg;
use crate::vehicles::Vehicle;

/// One fix.
pub fn sample(out: &mut Output, v: &Vehicle, origin: &GeoOrigin, t_ns: i64) -> Msg {
    let n = out.noise;
    let p = v.pose.apply([out.mount.x, out.mount.y, out.mount.z]);
    let enu = [
        p[0] + out.rng.gauss(n.horizontal_stddev_m),
        p[1] + out.rng.gauss(n.horizontal_stddev_m),
        p[2] + out.rng.gauss(n.vertical_stddev_m),
    ];
    let (lat, lon, alt) = geo::enu_to_geodetic(origin, enu);
    Msg::NavSatFix(NavSatFix {
        header: Header {
            stamp: ros_time(t_ns),
            frame_id: String::new(),
        },
        status: NavSatStatus::default(),
        latitude: lat,
        longitude: lon,
        altitude: alt,
        position_covariance: [0.0; 9],
        position_covariance_type: 0,
    })
}
