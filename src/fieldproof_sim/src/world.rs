//! The world's geometry: obstacles as 2D shapes with a height, ray casts and clearances.

use fieldproof_robots::{Shape as WorldShape, World};

/// A footprint on the ground plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// A circle.
    Circle {
        /// Centre x.
        cx: f64,
        /// Centre y.
        cy: f64,
        /// Radius.
        r: f64,
    },
    /// A rectangle rotated by `yaw` about its centre.
    Box {
        /// Centre x.
        cx: f64,
        /// Centre y.
        cy: f64,
        /// Half length (along its own x).
        hx: f64,
        /// Half width.
        hy: f64,
        /// Rotation.
        yaw: f64,
    },
}

impl Shape {
    /// Distance along the ray `origin + t * dir` (unit `dir`, `t >= 0`) to the first hit of
    /// the outline, or `None`. A ray starting inside hits at 0.
    pub fn ray(&self, ox: f64, oy: f64, dx: f64, dy: f64) -> Option<f64> {
        match *self {
            Shape::Circle { cx, cy, r } => {
                let (px, py) = (ox - cx, oy - cy);
                let b = px * dx + py * dy;
                let c = px * px + py * py - r * r;
                if c <= 0.0 {
                    return Some(0.0);
                }
                let disc = b * b - c;
                if disc < 0.0 || b > 0.0 {
                    return None;
                }
                Some(-b - disc.sqrt())
            }
            Shape::Box {
                cx,
                cy,
                hx,
                hy,
                yaw,
            } => {
                // Into the box frame, then the slab method.
                let (s, c) = yaw.sin_cos();
                let (px, py) = (ox - cx, oy - cy);
                let lx = c * px + s * py;
                let ly = -s * px + c * py;
                let ldx = c * dx + s * dy;
                let ldy = -s * dx + c * dy;
                let mut t0 = 0.0f64;
                let mut t1 = f64::INFINITY;
                for (p, d, h) in [(lx, ldx, hx), (ly, ldy, hy)] {
                    if d.abs() < 1e-12 {
                        if p.abs() > h {
                            return None;
                        }
                    } else {
                        let a = (-h - p) / d;
                        let b = (h - p) / d;
                        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                        t0 = t0.max(lo);
                        t1 = t1.min(hi);
                        if t0 > t1 {
                            return None;
                        }
                    }
                }
                Some(t0)
            }
        }
    }

    /// Signed distance from the point to the outline (negative inside).
    pub fn distance(&self, x: f64, y: f64) -> f64 {
        match *self {
            Shape::Circle { cx, cy, r } => ((x - cx).powi(2) + (y - cy).powi(2)).sqrt() - r,
            Shape::Box {
                cx,
                cy,
                hx,
                hy,
                yaw,
            } => {
                let (s, c) = yaw.sin_cos();
                let (px, py) = (x - cx, y - cy);
                let qx = (c * px + s * py).abs() - hx;
                let qy = (-s * px + c * py).abs() - hy;
                let outside = (qx.max(0.0).powi(2) + qy.max(0.0).powi(2)).sqrt();
                outside + qx.max(qy).min(0.0)
            }
        }
    }
}

/// A static obstacle.
#[derive(Debug, Clone, PartialEq)]
pub struct Obstacle {
    /// Its name in the world file.
    pub name: String,
    /// Footprint.
    pub shape: Shape,
    /// Height above the ground.
    pub height: f64,
    /// Colour the camera draws it in.
    pub color: [u8; 3],
}

/// The static part of the simulated world.
#[derive(Debug, Clone, PartialEq)]
pub struct SimWorld {
    /// Obstacles.
    pub obstacles: Vec<Obstacle>,
    /// Ground bounds (min x, min y, max x, max y).
    pub bounds: Option<[f64; 4]>,
}

impl SimWorld {
    /// Builds the geometry of a loaded world.
    pub fn new(world: &World) -> Self {
        let obstacles = world
            .obstacles
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let shape = match o.shape {
                    WorldShape::Circle => Shape::Circle {
                        cx: o.center[0],
                        cy: o.center[1],
                        r: o.radius_m.unwrap_or(0.0),
                    },
                    WorldShape::Box => {
                        let s = o.size_m.unwrap_or([0.0, 0.0]);
                        Shape::Box {
                            cx: o.center[0],
                            cy: o.center[1],
                            hx: s[0] / 2.0,
                            hy: s[1] / 2.0,
                            yaw: o.yaw_deg.to_radians(),
                        }
                    }
                };
                Obstacle {
                    name: o.name.clone(),
                    shape,
                    height: o.height_m,
                    color: o.color_rgb.unwrap_or_else(|| palette(i)),
                }
            })
            .collect();
        let bounds = world
            .bounds
            .map(|b| [b.min[0], b.min[1], b.max[0], b.max[1]]);
        Self { obstacles, bounds }
    }

    /// The nearest obstacle hit by a horizontal ray at height `z`: (distance, index).
    pub fn ray(&self, ox: f64, oy: f64, z: f64, yaw: f64, max: f64) -> Option<(f64, usize)> {
        let (dy, dx) = yaw.sin_cos();
        let mut best: Option<(f64, usize)> = None;
        for (i, o) in self.obstacles.iter().enumerate() {
            if z > o.height || z < 0.0 {
                continue;
            }
            if let Some(t) = o.shape.ray(ox, oy, dx, dy) {
                if t <= max && best.is_none_or(|(b, _)| t < b) {
                    best = Some((t, i));
                }
            }
        }
        best
    }

    /// Obstacles a circle of radius `r` at (x, y), spanning heights `z0..z1`, overlaps.
    pub fn overlaps(&self, x: f64, y: f64, r: f64, z0: f64, z1: f64) -> Vec<usize> {
        self.obstacles
            .iter()
            .enumerate()
            .filter(|(_, o)| z0 < o.height && z1 > 0.0 && o.shape.distance(x, y) < r)
            .map(|(i, _)| i)
            .collect()
    }

    /// True when the circle lies partly outside the bounds.
    pub fn outside_bounds(&self, x: f64, y: f64, r: f64) -> bool {
        self.bounds
            .is_some_and(|b| x - r < b[0] || y - r < b[1] || x + r > b[2] || y + r > b[3])
    }
}

/// The camera's colours of obstacles without a `color_rgb`: obstacle i takes `PALETTE[i % 8]`.
pub const PALETTE: [[u8; 3]; 8] = [
    [200, 60, 50],
    [60, 160, 70],
    [60, 90, 200],
    [210, 170, 40],
    [150, 70, 180],
    [40, 170, 170],
    [220, 120, 40],
    [120, 120, 120],
];

/// A distinct, saturated colour per obstacle index.
fn palette(i: usize) -> [u8; 3] {
    PALETTE[i % PALETTE.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ray_hits_a_circle_at_its_surface() {
        let c = Shape::Circle {
            cx: 5.0,
            cy: 0.0,
            r: 0.25,
        };
        assert!((c.ray(0.0, 0.0, 1.0, 0.0).unwrap() - 4.75).abs() < 1e-12);
        assert_eq!(c.ray(0.0, 0.0, -1.0, 0.0), None);
        assert_eq!(c.ray(0.0, 1.0, 1.0, 0.0), None);
        assert_eq!(c.ray(5.0, 0.1, 1.0, 0.0), Some(0.0));
    }

    #[test]
    fn ray_hits_a_rotated_box() {
        let b = Shape::Box {
            cx: 3.0,
            cy: 0.0,
            hx: 0.5,
            hy: 0.5,
            yaw: std::f64::consts::FRAC_PI_4,
        };
        // The diamond's corner points at the origin: sqrt(2)/2 from the centre.
        let t = b.ray(0.0, 0.0, 1.0, 0.0).unwrap();
        assert!(
            (t - (3.0 - 0.5 * std::f64::consts::SQRT_2)).abs() < 1e-9,
            "{t}"
        );
        assert!(b.distance(3.0, 0.0) < 0.0);
        assert!((b.distance(0.0, 0.0) - t).abs() < 1e-9);
    }
}
