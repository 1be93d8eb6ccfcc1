//! RGB-D camera, synthetic but real size: each image column is one ray cast into the world
//! (obstacles and other vehicles drawn as upright walls of their height and colour, a
//! checkered ground that moves with the pose, a sky gradient), from which the colour image,
//! the depth image (32FC1, planar depth) and the organised point cloud (camera_link: x
//! forward) are filled. Cheap: one ray per column, one pass over the pixels.

use fieldproof_msgs::sensor_msgs::{CameraInfo, Image, PointCloud2, PointField, RegionOfInterest};
use fieldproof_msgs::std_msgs::Header;
use fieldproof_robots::CameraSpec;

use super::lidar::{cast, Hit};
use crate::math::{ros_time, Pose};
use crate::vehicles::Vehicle;
use crate::world::SimWorld;

/// Pinhole intrinsics from the width, height and horizontal field of view.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Intrinsics {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Focal length in pixels (square pixels).
    pub f: f64,
    /// Principal point x.
    pub cx: f64,
    /// Principal point y.
    pub cy: f64,
}

impl Intrinsics {
    /// The intrinsics of a camera spec.
    pub fn new(spec: &CameraSpec) -> Self {
        let w = f64::from(spec.width);
        let h = f64::from(spec.height);
        Self {
            width: spec.width,
            height: spec.height,
            f: w / 2.0 / (spec.hfov_deg.to_radians() / 2.0).tan(),
            cx: (w - 1.0) / 2.0,
            cy: (h - 1.0) / 2.0,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Column {
    /// Horizontal direction of the column's ray in the world.
    dx: f64,
    dy: f64,
    /// cos of the angle between the ray and the optical axis.
    cos: f64,
    /// (planar depth, colour, top row, bottom row) of what the ray hit.
    hit: Option<(f32, [u8; 3], f64, f64)>,
}

/// One rendered frame: the column hits, shared by the image, depth and cloud outputs.
#[derive(Debug, Clone)]
pub struct Frame {
    intr: Intrinsics,
    cam: Pose,
    near: f64,
    far: f64,
    cols: Vec<Column>,
}

/// Renders the view of the camera mounted at `mount` on vehicle `own`.
pub fn render(
    spec: &CameraSpec,
    mount: &Pose,
    world: &SimWorld,
    vehicles: &[Vehicle],
    own: usize,
) -> Frame {
    let intr = Intrinsics::new(spec);
    let v = &vehicles[own];
    let p = v.pose.apply([mount.x, mount.y, mount.z]);
    let cam = Pose {
        x: p[0],
        y: p[1],
        z: p[2],
        yaw: v.pose.yaw + mount.yaw,
    };
    let cols = (0..intr.width)
        .map(|u| {
            let off = ((intr.cx - f64::from(u)) / intr.f).atan();
            let yaw = cam.yaw + off;
            let (dy, dx) = yaw.sin_cos();
            let cos = off.cos();
            let hit = cast(
                world,
                vehicles,
                own,
                (cam.x, cam.y, cam.z),
                yaw,
                spec.far_m / cos,
            )
            .and_then(|(d, what)| {
                let depth = d * cos;
                if depth < spec.near_m {
                    return None;
                }
                let (height, colour) = match what {
                    Hit::Obstacle(i) => (world.obstacles[i].height, world.obstacles[i].color),
                    Hit::Vehicle(j) => (vehicles[j].z_span().1, [230, 230, 230]),
                };
                let top = intr.cy - intr.f * (height - cam.z) / depth;
                let bottom = intr.cy + intr.f * cam.z / depth;
                let shade = (1.0 - 0.6 * (depth / spec.far_m)).clamp(0.3, 1.0);
                let c = colour.map(|x| (f64::from(x) * shade) as u8);
                Some((depth as f32, c, top, bottom))
            });
            Column { dx, dy, cos, hit }
        })
        .collect();
    Frame {
        intr,
        cam,
        near: spec.near_m,
        far: spec.far_m,
        cols,
    }
}

impl Frame {
    /// Colour and planar depth (inf: nothing within far) of pixel (u, v).
    #[inline]
    fn pixel(&self, u: usize, v: usize) -> ([u8; 3], f32) {
        let col = &self.cols[u];
        let vf = v as f64;
        if let Some((d, c, top, bottom)) = col.hit {
            if vf >= top && vf <= bottom {
                return (c, d);
            }
        }
        let below = vf - self.intr.cy;
        if below > 0.0 && self.cam.z > 0.0 {
            let depth = self.cam.z * self.intr.f / below;
            if depth <= self.far && depth >= self.near {
                let dist = depth / col.cos;
                let gx = self.cam.x + col.dx * dist;
                let gy = self.cam.y + col.dy * dist;
                let checker = (gx.floor() as i64 + gy.floor() as i64) & 1 == 0;
                let c = if checker {
                    [120, 110, 90]
                } else {
                    [90, 84, 70]
                };
                return (c, depth as f32);
            }
        }
        let t = (v as f64 / self.intr.height as f64).min(1.0);
        (
            [(110.0 + 80.0 * t) as u8, (160.0 + 60.0 * t) as u8, 235],
            f32::INFINITY,
        )
    }

    fn header(t_ns: i64, frame_id: &str) -> Header {
        Header {
            stamp: ros_time(t_ns),
            frame_id: frame_id.to_string(),
        }
    }

    /// The colour image (`rgb8`, `bgr8` or `mono8`).
    pub fn image(&self, encoding: &str, t_ns: i64, frame_id: &str) -> Image {
        let (w, h) = (self.intr.width as usize, self.intr.height as usize);
        let channels = if encoding == "mono8" { 1 } else { 3 };
        let mut data = Vec::with_capacity(w * h * channels);
        for v in 0..h {
            for u in 0..w {
                let ([r, g, b], _) = self.pixel(u, v);
                match encoding {
                    "mono8" => {
                        data.push(((u16::from(r) * 3 + u16::from(g) * 6 + u16::from(b)) / 10) as u8)
                    }
                    "bgr8" => data.extend_from_slice(&[b, g, r]),
                    _ => data.extend_from_slice(&[r, g, b]),
                }
            }
        }
        Image {
            header: Self::header(t_ns, frame_id),
            height: h as u32,
            width: w as u32,
            encoding: encoding.to_string(),
            is_bigendian: 0,
            step: (w * channels) as u32,
            data,
        }
    }

    /// The depth image, `32FC1` planar depth in metres (inf where nothing is within far).
    pub fn depth(&self, t_ns: i64, frame_id: &str) -> Image {
        let (w, h) = (self.intr.width as usize, self.intr.height as usize);
        let mut data = Vec::with_capacity(w * h * 4);
        for v in 0..h {
            for u in 0..w {
                data.extend_from_slice(&self.pixel(u, v).1.to_le_bytes());
            }
        }
        Image {
            header: Self::header(t_ns, frame_id),
            height: h as u32,
            width: w as u32,
            encoding: "32FC1".into(),
            is_bigendian: 0,
            step: (w * 4) as u32,
            data,
        }
    }

    /// The organised point cloud (x, y, z, rgb as float32) in the x-forward camera frame;
    /// NaN where nothing is within far.
    pub fn points(&self, t_ns: i64, frame_id: &str) -> PointCloud2 {
        let (w, h) = (self.intr.width as usize, self.intr.height as usize);
        let mut data = Vec::with_capacity(w * h * 16);
        for v in 0..h {
            let zf = (self.intr.cy - v as f64) / self.intr.f;
            for u in 0..w {
                let ([r, g, b], d) = self.pixel(u, v);
                let (x, y, z) = if d.is_finite() {
                    let yf = (self.intr.cx - u as f64) / self.intr.f;
                    (d, (f64::from(d) * yf) as f32, (f64::from(d) * zf) as f32)
                } else {
                    (f32::NAN, f32::NAN, f32::NAN)
                };
                let rgb = f32::from_bits(u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b));
                for f in [x, y, z, rgb] {
                    data.extend_from_slice(&f.to_le_bytes());
                }
            }
        }
        let field = |name: &str, offset| PointField {
            name: name.into(),
            offset,
            datatype: 7, // FLOAT32
            count: 1,
        };
        PointCloud2 {
            header: Self::header(t_ns, frame_id),
            height: h as u32,
            width: w as u32,
            fields: vec![
                field("x", 0),
                field("y", 4),
                field("z", 8),
                field("rgb", 12),
            ],
            is_bigendian: false,
            point_step: 16,
            row_step: (16 * w) as u32,
            data,
            is_dense: false,
        }
    }
}

/// The calibration of an ideal pinhole camera (no distortion).
pub fn info(spec: &CameraSpec, t_ns: i64, frame_id: &str) -> CameraInfo {
    let i = Intrinsics::new(spec);
    CameraInfo {
        header: Header {
            stamp: ros_time(t_ns),
            frame_id: frame_id.to_string(),
        },
        height: i.height,
        width: i.width,
        distortion_model: "plumb_bob".into(),
        d: vec![0.0; 5],
        k: [i.f, 0.0, i.cx, 0.0, i.f, i.cy, 0.0, 0.0, 1.0],
        r: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        p: [i.f, 0.0, i.cx, 0.0, 0.0, i.f, i.cy, 0.0, 0.0, 0.0, 1.0, 0.0],
        binning_x: 0,
        binning_y: 0,
        roi: RegionOfInterest::default(),
    }
}
