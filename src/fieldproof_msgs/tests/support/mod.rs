//! Seeded random samples of every message type, shared by the integration tests.

#![allow(dead_code)]

use fieldproof_msgs::{
    builtin_interfaces, diagnostic_msgs, dispatch, fieldproof_interfaces, geometry_msgs,
    lifecycle_msgs, nav_msgs, rosgraph_msgs, sensor_msgs, std_msgs, tf2_msgs, vision_msgs,
    MaybeStamped, MessageKind, RosMessage,
};

/// splitmix64: small, seedable, reproducible everywhere.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as usize
    }
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// How long the sequences of a sample are.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Lengths {
    /// All sequences and strings empty.
    Empty,
    /// All sequences non-empty (1..=7 elements), strings of any length.
    NonEmpty,
    /// Anything from 0 to 7 elements.
    Any,
}

pub struct Ctx {
    pub rng: Rng,
    pub lengths: Lengths,
}

impl Ctx {
    fn seq_len(&mut self) -> usize {
        match self.lengths {
            Lengths::Empty => 0,
            Lengths::NonEmpty => self.rng.range(1, 7),
            Lengths::Any => self.rng.range(0, 7),
        }
    }
}

/// Random value generation for message fields.
pub trait Gen: Sized {
    fn gen(c: &mut Ctx) -> Self;
}

impl Gen for f64 {
    fn gen(c: &mut Ctx) -> Self {
        match c.rng.range(0, 3) {
            // Physical magnitudes.
            0 | 1 => (c.rng.unit() - 0.5) * 2000.0,
            // Any finite bit pattern (subnormals, huge exponents, -0.0); NaN/inf redrawn.
            _ => loop {
                let v = f64::from_bits(c.rng.next_u64());
                if v.is_finite() {
                    break v;
                }
            },
        }
    }
}

impl Gen for f32 {
    fn gen(c: &mut Ctx) -> Self {
        match c.rng.range(0, 3) {
            0 | 1 => ((c.rng.unit() - 0.5) * 200.0) as f32,
            _ => loop {
                let v = f32::from_bits(c.rng.next_u64() as u32);
                if v.is_finite() {
                    break v;
                }
            },
        }
    }
}

macro_rules! gen_int {
    ($($t:ty),*) => { $( impl Gen for $t { fn gen(c: &mut Ctx) -> Self { c.rng.next_u64() as $t } } )* };
}
gen_int!(u8, i8, u16, u32, i32, u64);

impl Gen for bool {
    fn gen(c: &mut Ctx) -> Self {
        c.rng.next_u64() & 1 == 1
    }
}

impl Gen for String {
    /// ASCII and multi-byte UTF-8, so byte lengths (and the padding after them) vary.
    fn gen(c: &mut Ctx) -> Self {
        const PIECES: &[&str] = &["a", "b", "Z", "_", "/", "0", "7", " ", "é", "µ", "→", "😀"];
        let n = if c.lengths == Lengths::Empty {
            0
        } else {
            c.rng.range(0, 12)
        };
        (0..n)
            .map(|_| PIECES[c.rng.range(0, PIECES.len() - 1)])
            .collect()
    }
}

impl<T: Gen> Gen for Vec<T> {
    fn gen(c: &mut Ctx) -> Self {
        let n = c.seq_len();
        (0..n).map(|_| T::gen(c)).collect()
    }
}

impl<T: Gen + Copy + Default, const N: usize> Gen for [T; N] {
    fn gen(c: &mut Ctx) -> Self {
        let mut out = [T::default(); N];
        for v in &mut out {
            *v = T::gen(c);
        }
        out
    }
}

macro_rules! gen_struct {
    ($($ty:path { $($field:ident),* $(,)? })*) => {
        $(
            impl Gen for $ty {
                fn gen(c: &mut Ctx) -> Self {
                    Self { $( $field: Gen::gen(c), )* }
                }
            }
        )*
    };
}

gen_struct! {
    builtin_interfaces::Time { sec, nanosec }
    builtin_interfaces::Duration { sec, nanosec }
    std_msgs::Header { stamp, frame_id }
    std_msgs::String { data }
    std_msgs::Bool { data }
    std_msgs::Float64 { data }
    geometry_msgs::Vector3 { x, y, z }
    geometry_msgs::Quaternion { x, y, z, w }
    geometry_msgs::Point { x, y, z }
    geometry_msgs::Pose { position, orientation }
    geometry_msgs::PoseStamped { header, pose }
    geometry_msgs::PoseArray { header, poses }
    geometry_msgs::PoseWithCovariance { pose, covariance }
    geometry_msgs::Twist { linear, angular }
    geometry_msgs::TwistStamped { header, twist }
    geometry_msgs::TwistWithCovariance { twist, covariance }
    geometry_msgs::Transform { translation, rotation }
    geometry_msgs::TransformStamped { header, child_frame_id, transform }
    sensor_msgs::Imu {
        header, orientation, orientation_covariance, angular_velocity,
        angular_velocity_covariance, linear_acceleration, linear_acceleration_covariance,
    }
    sensor_msgs::NavSatStatus { status, service }
    sensor_msgs::NavSatFix {
        header, status, latitude, longitude, altitude, position_covariance, position_covariance_type,
    }
    sensor_msgs::JointState { header, name, position, velocity, effort }
    sensor_msgs::LaserScan {
        header, angle_min, angle_max, angle_increment, time_increment, scan_time, range_min,
        range_max, ranges, intensities,
    }
    sensor_msgs::BatteryState {
        header, voltage, temperature, current, charge, capacity, design_capacity, percentage,
        power_supply_status, power_supply_health, power_supply_technology, present, cell_voltage,
        cell_temperature, location, serial_number,
    }
    sensor_msgs::Image { header, height, width, encoding, is_bigendian, step, data }
    sensor_msgs::RegionOfInterest { x_offset, y_offset, height, width, do_rectify }
    sensor_msgs::CameraInfo {
        header, height, width, distortion_model, d, k, r, p, binning_x, binning_y, roi,
    }
    sensor_msgs::PointField { name, offset, datatype, count }
    sensor_msgs::PointCloud2 {
        header, height, width, fields, is_bigendian, point_step, row_step, data, is_dense,
    }
    sensor_msgs::MagneticField { header, magnetic_field, magnetic_field_covariance }
    sensor_msgs::FluidPressure { header, fluid_pressure, variance }
    sensor_msgs::Temperature { header, temperature, variance }
    sensor_msgs::Range {
        header, radiation_type, field_of_view, min_range, max_range, range, variance,
    }
    nav_msgs::Odometry { header, child_frame_id, pose, twist }
    nav_msgs::MapMetaData { map_load_time, resolution, width, height, origin }
    nav_msgs::OccupancyGrid { header, info, data }
    nav_msgs::Path { header, poses }
    rosgraph_msgs::Clock { clock }
    tf2_msgs::TFMessage { transforms }
    lifecycle_msgs::State { id, label }
    lifecycle_msgs::Transition { id, label }
    lifecycle_msgs::TransitionDescription { transition, start_state, goal_state }
    lifecycle_msgs::TransitionEvent { timestamp, transition, start_state, goal_state }
    vision_msgs::Point2D { x, y }
    vision_msgs::Pose2D { position, theta }
    vision_msgs::BoundingBox2D { center, size_x, size_y }
    vision_msgs::ObjectHypothesis { class_id, score }
    vision_msgs::ObjectHypothesisWithPose { hypothesis, pose }
    vision_msgs::Detection2D { header, results, bbox, id }
    vision_msgs::Detection2DArray { header, detections }
    diagnostic_msgs::KeyValue { key, value }
    diagnostic_msgs::DiagnosticStatus { level, name, message, hardware_id, values }
    diagnostic_msgs::DiagnosticArray { header, status }
    fieldproof_interfaces::FleetStatus { header, vehicle, phase, position, layer_altitude_m, pad_error_m }
    fieldproof_interfaces::ClearanceRequest { header, vehicle, kind, request_id, pad }
    fieldproof_interfaces::Clearance { header, vehicle, kind, request_id, granted, lease_id, expires, reason }
}

impl Gen for std_msgs::Empty {
    /// ROS always sends 0 in the placeholder member.
    fn gen(_: &mut Ctx) -> Self {
        Self::default()
    }
}

/// Bounds every sample type meets.
pub trait SampleType:
    RosMessage + MaybeStamped + Gen + Default + PartialEq + std::fmt::Debug
{
}
impl<T: RosMessage + MaybeStamped + Gen + Default + PartialEq + std::fmt::Debug> SampleType for T {}

/// Samples per type: the default value, one with every sequence and string empty, one with every
/// sequence non-empty, and random ones.
pub const SAMPLES_PER_TYPE: usize = 7;

/// The samples of `T`, deterministic for a seed.
pub fn samples_of<T: SampleType>(seed: u64) -> Vec<T> {
    let mut out = vec![T::default()];
    for i in 1..SAMPLES_PER_TYPE {
        let lengths = match i {
            1 => Lengths::Empty,
            2 | 3 => Lengths::NonEmpty,
            _ => Lengths::Any,
        };
        let mut c = Ctx {
            rng: Rng::new(seed ^ (i as u64).wrapping_mul(0x1000_0000_01B3)),
            lengths,
        };
        out.push(T::gen(&mut c));
    }
    out
}

/// A per-type seed derived from one test seed and the type name (FNV-1a).
pub fn seed_for(kind: MessageKind, seed: u64) -> u64 {
    kind.name()
        .bytes()
        .fold(seed ^ 0xcbf2_9ce4_8422_2325, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        })
}

/// A type-erased check of one sample against bytes from elsewhere.
pub type Check = Box<dyn Fn(&[u8]) -> Result<(), String>>;

/// One sample of one type.
pub struct Sample {
    pub kind: MessageKind,
    /// The value as JSON, fields in declaration order.
    pub json: String,
    /// `cdr::to_bytes` of the value.
    pub cdr: Vec<u8>,
    /// Decodes bytes, compares them with the value, re-encodes and compares with the bytes.
    pub check: Check,
}

fn make_samples<T: SampleType>(kind: MessageKind, seed: u64) -> Vec<Sample> {
    samples_of::<T>(seed_for(kind, seed))
        .into_iter()
        .map(|value| {
            let json = serde_json::to_string(&value).expect("JSON of a sample");
            let cdr = fieldproof_msgs::cdr::to_bytes(&value).expect("CDR of a sample");
            let check: Check = Box::new(move |bytes: &[u8]| {
                let decoded: T = fieldproof_msgs::cdr::from_bytes(bytes)
                    .map_err(|e| format!("decoding failed: {e}"))?;
                if decoded != value {
                    return Err(format!("decoded {decoded:?}\n  expected {value:?}"));
                }
                let again = fieldproof_msgs::cdr::to_bytes(&decoded).map_err(|e| e.to_string())?;
                if again != bytes {
                    return Err(format!(
                        "re-encoded to {}\n  not {}",
                        hex(&again),
                        hex(bytes)
                    ));
                }
                Ok(())
            });
            Sample {
                kind,
                json,
                cdr,
                check,
            }
        })
        .collect()
}

/// Samples of every known type.
pub fn all_samples(seed: u64) -> Vec<Sample> {
    MessageKind::ALL
        .iter()
        .flat_map(|&kind| dispatch!(kind, |T| make_samples::<T>(kind, seed)).expect("known kind"))
        .collect()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub fn unhex(s: &str) -> Result<Vec<u8>, String> {
    if s.len() % 2 != 0 {
        return Err(format!("odd-length hex string ({} chars)", s.len()));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).map_err(|e| format!("bad hex at {i}: {e}")))
        .collect()
}
