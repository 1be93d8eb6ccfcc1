//! Local ENU metres about a world's [`GeoOrigin`] to WGS 84 latitude, longitude and altitude,
//! and back: the one conversion the simulator's NavSat and the mission's localizer share.
//!
//! The projection is the local one Gazebo's spherical coordinates use for a flat world: the
//! east and north offsets scale by the ellipsoid's radii of curvature at the origin (the
//! meridian radius for latitude, the prime vertical radius times cos(latitude) for
//! longitude), and up is altitude. [`geodetic_to_enu`] is the exact inverse of
//! [`enu_to_geodetic`], so a fix made from a simulated position converts back to that
//! position to rounding. Against true ENU (ECEF-based) the difference is second order in the
//! distance from the origin (centimetres over the few hundred metres of a simulated world).

use crate::GeoOrigin;

/// WGS 84 semi-major axis, metres.
pub const WGS84_A: f64 = 6_378_137.0;
/// WGS 84 first eccentricity squared.
pub const WGS84_E2: f64 = 6.694_379_990_14e-3;

/// The radii of curvature at geodetic latitude `latitude_deg` on WGS 84, metres:
/// `(meridian, prime_vertical)`. A radian of latitude is `meridian` metres, a radian of
/// longitude `prime_vertical * cos(latitude)` metres (at the ellipsoid's surface).
pub fn radii_of_curvature(latitude_deg: f64) -> (f64, f64) {
    let s = latitude_deg.to_radians().sin();
    let w = (1.0 - WGS84_E2 * s * s).sqrt();
    let prime_vertical = WGS84_A / w;
    let meridian = WGS84_A * (1.0 - WGS84_E2) / (w * w * w);
    (meridian, prime_vertical)
}

/// Metres per radian of latitude (north) and of longitude (east) at `origin`, at its altitude.
fn metres_per_radian(origin: &GeoOrigin) -> (f64, f64) {
    let (meridian, prime_vertical) = radii_of_curvature(origin.latitude_deg);
    (
        meridian + origin.altitude_m,
        (prime_vertical + origin.altitude_m) * origin.latitude_deg.to_radians().cos(),
    )
}

/// The latitude, longitude (degrees) and altitude (metres above the ellipsoid) of the point
/// `enu` (east, north, up metres) about `origin`.
pub fn enu_to_geodetic(origin: &GeoOrigin, enu: [f64; 3]) -> (f64, f64, f64) {
    let (north_per_rad, east_per_rad) = metres_per_radian(origin);
    (
        origin.latitude_deg + (enu[1] / north_per_rad).to_degrees(),
        origin.longitude_deg + (enu[0] / east_per_rad).to_degrees(),
        origin.altitude_m + enu[2],
    )
}

/// The east, north, up metres about `origin` of the point at `latitude_deg`,
/// `longitude_deg`, `altitude_m`: the inverse of [`enu_to_geodetic`]. A longitude difference
/// across the antimeridian is taken the short way round.
pub fn geodetic_to_enu(
    origin: &GeoOrigin,
    latitude_deg: f64,
    longitude_deg: f64,
    altitude_m: f64,
) -> [f64; 3] {
    let (north_per_rad, east_per_rad) = metres_per_radian(origin);
    let mut d_lon = longitude_deg - origin.longitude_deg;
    if d_lon > 180.0 {
        d_lon -= 360.0;
    } else if d_lon < -180.0 {
        d_lon += 360.0;
    }
    [
        d_lon.to_radians() * east_per_rad,
        (latitude_deg - origin.latitude_deg).to_radians() * north_per_rad,
        altitude_m - origin.altitude_m,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn origin(latitude_deg: f64, longitude_deg: f64, altitude_m: f64) -> GeoOrigin {
        GeoOrigin {
            latitude_deg,
            longitude_deg,
            altitude_m,
        }
    }

    /// The length of one degree of latitude and of longitude on WGS 84 as published (the
    /// table of the Wikipedia article "Latitude", section "Length of a degree of latitude",
    /// and NGA's WGS 84 figures): 0 deg 110 574 m / 111 320 m, 45 deg 111 132 m / 78 847 m,
    /// 60 deg 111 412 m / 55 800 m. The local radii reproduce them within a metre.
    #[test]
    fn a_degree_is_as_long_as_published_for_wgs84() {
        for (lat, per_degree_lat, per_degree_lon) in [
            (0.0, 110_574.0, 111_320.0),
            (45.0, 111_132.0, 78_847.0),
            (60.0, 111_412.0, 55_800.0),
        ] {
            let (meridian, prime_vertical) = radii_of_curvature(lat);
            let lat_m = meridian * 1f64.to_radians();
            let lon_m = prime_vertical * f64::cos(f64::to_radians(lat)) * 1f64.to_radians();
            assert!((lat_m - per_degree_lat).abs() < 1.0, "{lat}: {lat_m}");
            assert!((lon_m - per_degree_lon).abs() < 1.0, "{lat}: {lon_m}");
        }
        // The semi-major axis is the equatorial radius and the polar radius of curvature is
        // a / sqrt(1 - e2) = 6 399 593.626 m (WGS 84's published figure).
        assert_eq!(radii_of_curvature(0.0).1, WGS84_A);
        assert!((radii_of_curvature(90.0).0 - 6_399_593.626).abs() < 1e-3);
    }

    #[test]
    fn one_degree_of_latitude_is_about_111_km() {
        let o = origin(48.0, 11.0, 500.0);
        let (lat, lon, alt) = enu_to_geodetic(&o, [0.0, 111_200.0, 10.0]);
        assert!((lat - 49.0).abs() < 0.01, "{lat}");
        assert_eq!(lon, 11.0);
        assert_eq!(alt, 510.0);
        let (_, lon, _) = enu_to_geodetic(&origin(48.0, 11.0, 0.0), [1000.0, 0.0, 0.0]);
        // 1 km east at 48 N: 1000 / (6390 km * cos 48) rad.
        assert!((lon - 11.0 - 0.013_42).abs() < 1e-4, "{lon}");
    }

    #[test]
    fn the_origin_is_zero() {
        let o = origin(47.3977, 8.5456, 488.0);
        assert_eq!(enu_to_geodetic(&o, [0.0; 3]), (47.3977, 8.5456, 488.0));
        assert_eq!(geodetic_to_enu(&o, 47.3977, 8.5456, 488.0), [0.0; 3]);
    }

    #[test]
    fn the_antimeridian_is_crossed_the_short_way() {
        let o = origin(0.0, 179.9999, 0.0);
        let (lat, lon, _) = enu_to_geodetic(&o, [50.0, 0.0, 0.0]);
        assert_eq!(lat, 0.0);
        let wrapped = lon - 360.0; // a receiver reports longitudes in [-180, 180]
        let enu = geodetic_to_enu(&o, lat, wrapped, 0.0);
        assert!((enu[0] - 50.0).abs() < 1e-6, "{enu:?}");
    }

    proptest! {
        /// ENU -> geodetic -> ENU is the identity to well under a millimetre anywhere a world
        /// can be (|lat| < 85 deg) over a few kilometres.
        #[test]
        fn round_trip_enu_geodetic_enu(
            lat0 in -85.0f64..85.0,
            lon0 in -180.0f64..180.0,
            alt0 in -400.0f64..5000.0,
            e in -5000.0f64..5000.0,
            n in -5000.0f64..5000.0,
            u in -100.0f64..1000.0,
        ) {
            let o = origin(lat0, lon0, alt0);
            let (lat, lon, alt) = enu_to_geodetic(&o, [e, n, u]);
            let back = geodetic_to_enu(&o, lat, lon, alt);
            for (a, b) in back.iter().zip([e, n, u]) {
                prop_assert!((a - b).abs() < 1e-6, "{back:?} vs {:?}", [e, n, u]);
            }
        }

        /// geodetic -> ENU -> geodetic is the identity too.
        #[test]
        fn round_trip_geodetic_enu_geodetic(
            lat0 in -85.0f64..85.0,
            lon0 in -179.0f64..179.0,
            d_lat in -0.05f64..0.05,
            d_lon in -0.05f64..0.05,
            alt in -400.0f64..5000.0,
        ) {
            let o = origin(lat0, lon0, 100.0);
            let enu = geodetic_to_enu(&o, lat0 + d_lat, lon0 + d_lon, alt);
            let (lat, lon, back_alt) = enu_to_geodetic(&o, enu);
            prop_assert!((lat - lat0 - d_lat).abs() < 1e-11);
            prop_assert!((lon - lon0 - d_lon).abs() < 1e-11);
            prop_assert!((back_alt - alt).abs() < 1e-9);
        }
    }
}
