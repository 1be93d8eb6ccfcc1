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

/// One rendered frame: colour and planar depth of every pixel (row-major), computed once
/// and shared by the image, depth and cloud outputs.
#[derive(Debug, Clone)]
pub struct Frame {
    intr: Intrinsics,
    rgb: Vec<[u8; 3]>,
    depth: Vec<f32>,
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
    let (w, h) = (intr.width as usize, intr.height as usize);
    // Per row: the planar depth of the ground (if it is seen there) and the sky colour.
    let ground: Vec<f64> = (0..h)
        .map(|row| {
            let below = row as f64 - intr.cy;
            let d = if below > 0.0 && cam.z > 0.0 {
                cam.z * intr.f / below
            } else {
                f64::INFINITY
            };
            if d >= spec.near_m && d <= spec.far_m {
                d
            } else {
                f64::INFINITY
            }
        })
        .collect();
    let sky: Vec<[u8; 3]> = (0..h)
        .map(|row| {
            let t = row as f64 / h as f64;
            [(110.0 + 80.0 * t) as u8, (160.0 + 60.0 * t) as u8, 235]
        })
        .collect();
    let mut rgb = vec![[0u8; 3]; w * h];
    let mut depth = vec![f32::INFINITY; w * h];
    for u in 0..w {
        let off = ((intr.cx - u as f64) / intr.f).atan();
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
            let planar = d * cos;
            if planar < spec.near_m {
                return None;
            }
            let (height, colour) = match what {
                Hit::Obstacle(i) => (world.obstacles[i].height, world.obstacles[i].color),
                Hit::Vehicle(j) => (vehicles[j].z_span().1, [230, 230, 230]),
            };
            let top = intr.cy - intr.f * (height - cam.z) / planar;
            let bottom = intr.cy + intr.f * cam.z / planar;
            let shade = (1.0 - 0.6 * (planar / spec.far_m)).clamp(0.3, 1.0);
            Some((
                planar as f32,
                colour.map(|x| (f64::from(x) * shade) as u8),
                top,
                bottom,
            ))
        });
        let (ax, ay) = (dx / cos, dy / cos);
        for row in 0..h {
            let i = row * w + u;
            let rf = row as f64;
            if let Some((d, c, top, bottom)) = hit {
                if rf >= top && rf <= bottom {
                    rgb[i] = c;
                    depth[i] = d;
                    continue;
                }
            }
            let g = ground[row];
            if g.is_finite() {
                // Checkered ground: 1 m squares at the point the pixel sees.
                let gx = (cam.x + ax * g + 1.0e6) as i64;
                let gy = (cam.y + ay * g + 1.0e6) as i64;
                rgb[i] = if (gx + gy) & 1 == 0 {
                    [120, 110, 90]
                } else {
                    [90, 84, 70]
                };
                depth[i] = g as f32;
            } else {
                rgb[i] = sky[row];
            }
        }
    }
    Frame { intr, rgb, depth }
}

impl Frame {
    fn header(t_ns: i64, frame_id: &str) -> Header {
        Header {
            stamp: ros_time(t_ns),
            frame_id: frame_id.to_string(),
        }
    }

    /// The colour image (`rgb8`, `bgr8` or `mono8`).
    pub fn image(&self, encoding: &str, t_ns: i64, frame_id: &str) -> Image {
        let (w, h) = (self.intr.width as usize, self.intr.height as usize);
        let data: Vec<u8> = match encoding {
            "mono8" => self
                .rgb
                .iter()
                .map(|[r, g, b]| {
                    ((u16::from(*r) * 3 + u16::from(*g) * 6 + u16::from(*b)) / 10) as u8
                })
                .collect(),
            "bgr8" => self.rgb.iter().flat_map(|[r, g, b]| [*b, *g, *r]).collect(),
            _ => self.rgb.as_flattened().to_vec(),
        };
        Image {
            header: Self::header(t_ns, frame_id),
            height: h as u32,
            width: w as u32,
            encoding: encoding.to_string(),
            is_bigendian: 0,
            step: (data.len() / h.max(1)) as u32,
            data,
        }
    }

    /// The depth image, `32FC1` planar depth in metres (inf where nothing is within far).
    pub fn depth(&self, t_ns: i64, frame_id: &str) -> Image {
        let (w, h) = (self.intr.width as usize, self.intr.height as usize);
        let mut data = Vec::with_capacity(w * h * 4);
        for d in &self.depth {
            data.extend_from_slice(&d.to_le_bytes());
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
        let mut data = vec![0u8; w * h * 16];
        let yf: Vec<f32> = (0..w)
            .map(|u| ((self.intr.cx - u as f64) / self.intr.f) as f32)
            .collect();
        for row in 0..h {
            let zf = ((self.intr.cy - row as f64) / self.intr.f) as f32;
            for (u, yf) in yf.iter().enumerate() {
                let i = row * w + u;
                let d = self.depth[i];
                let (x, y, z) = if d.is_finite() {
                    (d, d * yf, d * zf)
                } else {
                    (f32::NAN, f32::NAN, f32::NAN)
                };
                let [r, g, b] = self.rgb[i];
                let rgb = f32::from_bits(u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b));
                let o = i * 16;
                data[o..o + 4].copy_from_slice(&x.to_le_bytes());
                data[o + 4..o + 8].copy_from_slice(&y.to_le_bytes());
                data[o + 8..o + 12].copy_from_slice(&z.to_le_bytes());
                data[o + 12..o + 16].copy_from_slice(&rgb.to_le_bytes());
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
