//! The occupancy grid: a fixed rectangle of square cells in the `map` frame (ENU, x east,
//! y north), built from planar lidar scans placed with the vehicle's estimated pose.
//!
//! What a scan does to the grid (the planner's documented choice):
//! - a ray's end point inside `[range_min, range_max)` is a **hit**: its cell's hit count
//!   goes up, and a cell with `min_hits` hits is **occupied** for good;
//! - the cells a ray crosses are marked **seen** (free as far as the lidar knows) but their
//!   hit counts are **not cleared**: the spec's world is static ("not dynamic obstacle
//!   avoidance or SLAM"), so the map only grows, a route once closed stays closed, and the
//!   planner never oscillates between two routes as noisy scans of one edge come and go;
//! - `+inf` (and a finite range at or past `range_max`) is no return: the ray is seen up to
//!   `range_max` and hits nothing (the LaserScan convention); `NaN` is skipped; `-inf` (too
//!   close to measure, REP 117) and a range under `range_min` are skipped too (no position);
//! - hits outside the grid are dropped (counted in [`ScanOutcome::outside`]).
//!
//! Every occupied cell **blocks** the cells within the inflation radius (the vehicle's
//! radius plus a margin) of its centre: A* plans through cells that are not blocked. Up to
//! the preferred clearance further out, each cell knows how near the nearest obstacle is
//! ([`OccupancyMap::closeness`]): routes keep away from what the lidar saw, which leaves room
//! for what it did not see yet (the far side of a wall is unknown until the vehicle is past
//! it).

use fieldproof_msgs::nav_msgs::OccupancyGrid;
use fieldproof_msgs::sensor_msgs::LaserScan;

/// The most cells a grid may have (4096 x 4096): bounds and resolution that ask for more
/// are refused rather than allocating without limit.
pub const MAX_CELLS: usize = 1 << 24;

/// A cell by column (x) and row (y); cell (0, 0) is the south-west corner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Cell {
    /// Column, along x (east).
    pub col: usize,
    /// Row, along y (north).
    pub row: usize,
}

/// A planar pose in the map frame: position (m) and heading (rad, from x toward y).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Pose2 {
    /// East, m.
    pub x: f64,
    /// North, m.
    pub y: f64,
    /// Heading, rad.
    pub yaw: f64,
}

/// Where the grid lies: its south-west corner, cell size and cell counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GridGeometry {
    /// x of the grid's west edge, m.
    pub origin_x: f64,
    /// y of the grid's south edge, m.
    pub origin_y: f64,
    /// Cell edge length, m.
    pub resolution: f64,
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
}

impl GridGeometry {
    /// The grid covering `[min, max]` (x, y in metres) with square cells of `resolution`;
    /// errors name the parameter (`map_bounds_m`, `resolution_m`) and its value.
    pub fn new(min: [f64; 2], max: [f64; 2], resolution: f64) -> Result<GridGeometry, String> {
        if !(resolution.is_finite() && resolution > 0.0) {
            return Err(format!("resolution_m: {resolution} is not > 0"));
        }
        let bounds = [min[0], min[1], max[0], max[1]];
        if bounds.iter().any(|v| !v.is_finite()) || min[0] >= max[0] || min[1] >= max[1] {
            return Err(format!(
                "map_bounds_m: {bounds:?} is not [min_x, min_y, max_x, max_y] with min < max"
            ));
        }
        let width = ((max[0] - min[0]) / resolution).ceil();
        let height = ((max[1] - min[1]) / resolution).ceil();
        if width * height > MAX_CELLS as f64 {
            return Err(format!(
                "map_bounds_m: {bounds:?} at resolution_m {resolution} is {width} x {height} \
                 cells, more than {MAX_CELLS}"
            ));
        }
        Ok(GridGeometry {
            origin_x: min[0],
            origin_y: min[1],
            resolution,
            width: width as usize,
            height: height as usize,
        })
    }

    /// The cell holding point (x, y), `None` outside the grid (or for a non-finite point).
    pub fn cell_of(&self, x: f64, y: f64) -> Option<Cell> {
        let col = ((x - self.origin_x) / self.resolution).floor();
        let row = ((y - self.origin_y) / self.resolution).floor();
        let inside =
            col >= 0.0 && row >= 0.0 && col < self.width as f64 && row < self.height as f64;
        inside.then_some(Cell {
            col: col as usize,
            row: row as usize,
        })
    }

    /// The centre of a cell, m.
    pub fn center_of(&self, cell: Cell) -> [f64; 2] {
        [
            self.origin_x + (cell.col as f64 + 0.5) * self.resolution,
            self.origin_y + (cell.row as f64 + 0.5) * self.resolution,
        ]
    }

    /// The cell's index in row-major order (the OccupancyGrid's `data` order).
    pub fn index(&self, cell: Cell) -> usize {
        cell.row * self.width + cell.col
    }

    /// The neighbour of `cell` at offset (`d_col`, `d_row`), `None` off the grid.
    pub fn offset(&self, cell: Cell, d_col: isize, d_row: isize) -> Option<Cell> {
        let col = cell.col.checked_add_signed(d_col)?;
        let row = cell.row.checked_add_signed(d_row)?;
        (col < self.width && row < self.height).then_some(Cell { col, row })
    }

    /// Every cell the segment from `a` to `b` touches, in order from `a`'s cell (a grid walk
    /// after Amanatides and Woo). Where the segment passes exactly through a cell corner,
    /// both cells beside the corner are included, so a line of sight never slips between two
    /// diagonal neighbours. The walk starts where the segment enters the grid and stops where
    /// it leaves it.
    pub fn cells_along(&self, a: [f64; 2], b: [f64; 2]) -> Vec<Cell> {
        let mut cells = Vec::new();
        let Some((a, b)) = self.clip(a, b) else {
            return cells;
        };
        let to_grid = |p: [f64; 2]| {
            [
                (p[0] - self.origin_x) / self.resolution,
                (p[1] - self.origin_y) / self.resolution,
            ]
        };
        let (ga, gb) = (to_grid(a), to_grid(b));
        let clamp_cell = |g: [f64; 2]| {
            [
                (g[0].floor().max(0.0) as usize).min(self.width - 1),
                (g[1].floor().max(0.0) as usize).min(self.height - 1),
            ]
        };
        let [mut col, mut row] = clamp_cell(ga);
        let [end_col, end_row] = clamp_cell(gb);
        let d = [gb[0] - ga[0], gb[1] - ga[1]];
        let step = |d: f64| if d > 0.0 { 1isize } else { -1 };
        let (step_col, step_row) = (step(d[0]), step(d[1]));
        // Parameter t in [0, 1] along the segment at which the next column/row edge is crossed.
        let first_edge = |g: f64, cell: usize, d: f64| {
            if d == 0.0 {
                f64::INFINITY
            } else {
                let edge = if d > 0.0 {
                    cell as f64 + 1.0
                } else {
                    cell as f64
                };
                (edge - g) / d
            }
        };
        let mut t_col = first_edge(ga[0], col, d[0]);
        let mut t_row = first_edge(ga[1], row, d[1]);
        let dt_col = if d[0] == 0.0 {
            f64::INFINITY
        } else {
            1.0 / d[0].abs()
        };
        let dt_row = if d[1] == 0.0 {
            f64::INFINITY
        } else {
            1.0 / d[1].abs()
        };
        let end = Cell {
            col: end_col,
            row: end_row,
        };
        cells.push(Cell { col, row });
        // Every step crosses one edge (two at a corner), at increasing t; the walk ends when
        // the next edge lies past the end point, or at the end cell.
        while (col, row) != (end.col, end.row) && t_col.min(t_row) <= 1.0 {
            const CORNER: f64 = 1e-9;
            let advance_col = t_col < t_row + CORNER;
            let advance_row = t_row < t_col + CORNER;
            let here = Cell { col, row };
            if advance_col && advance_row {
                // Through a corner: the two cells beside it count as touched.
                for (d_col, d_row) in [(step_col, 0), (0, step_row)] {
                    if let Some(side) = self.offset(here, d_col, d_row) {
                        cells.push(side);
                    }
                }
            }
            let Some(next) = self.offset(
                here,
                if advance_col { step_col } else { 0 },
                if advance_row { step_row } else { 0 },
            ) else {
                break;
            };
            if advance_col {
                t_col += dt_col;
            }
            if advance_row {
                t_row += dt_row;
            }
            (col, row) = (next.col, next.row);
            cells.push(next);
        }
        if cells.last() != Some(&end) {
            // Rounding at an edge: the end point's own cell closes the walk.
            cells.push(end);
        }
        cells
    }

    /// The part of segment `a`-`b` inside the grid (Liang-Barsky), `None` if it misses it.
    fn clip(&self, a: [f64; 2], b: [f64; 2]) -> Option<([f64; 2], [f64; 2])> {
        if a.iter().chain(&b).any(|v| !v.is_finite()) {
            return None;
        }
        let min = [self.origin_x, self.origin_y];
        let max = [
            self.origin_x + self.width as f64 * self.resolution,
            self.origin_y + self.height as f64 * self.resolution,
        ];
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for axis in 0..2 {
            let d = b[axis] - a[axis];
            for (p, q) in [(-d, a[axis] - min[axis]), (d, max[axis] - a[axis])] {
                if p == 0.0 {
                    if q < 0.0 {
                        return None;
                    }
                } else {
                    let r = q / p;
                    if p < 0.0 {
                        t0 = t0.max(r);
                    } else {
                        t1 = t1.min(r);
                    }
                }
            }
        }
        if t0 > t1 {
            return None;
        }
        let at = |t: f64| [a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])];
        Some((at(t0), at(t1)))
    }
}

/// What one scan did to the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScanOutcome {
    /// Rays whose end point was a hit inside the grid.
    pub hits: usize,
    /// Cells that became occupied with this scan.
    pub newly_occupied: usize,
    /// Rays without a return (`+inf`, or at or past `range_max`).
    pub no_return: usize,
    /// Rays skipped: `NaN`, `-inf`, under `range_min`.
    pub skipped: usize,
    /// Hits outside the grid.
    pub outside: usize,
}

/// The occupancy grid with its inflation (see the module documentation).
#[derive(Debug, Clone)]
pub struct OccupancyMap {
    geometry: GridGeometry,
    min_hits: u16,
    hits: Vec<u16>,
    seen: Vec<bool>,
    occupied: Vec<bool>,
    /// The distance from each cell's centre to the nearest occupied cell's centre, m
    /// (infinite beyond the preferred clearance).
    nearest: Vec<f32>,
    /// The cell offsets within the preferred clearance of a cell's centre, with their
    /// distances (m).
    reach: Vec<(isize, isize, f32)>,
    inflation_radius_m: f64,
    preferred_clearance_m: f64,
    /// Bumped whenever a cell becomes occupied.
    revision: u64,
}

impl OccupancyMap {
    /// An empty map: nothing seen, nothing occupied. `inflation_radius_m` is the vehicle's
    /// radius plus the margin, `preferred_clearance_m` the distance routes keep from obstacles
    /// when they can (no more than the inflation when it is smaller); a cell is occupied after
    /// `min_hits` hits (at least 1).
    pub fn new(
        geometry: GridGeometry,
        inflation_radius_m: f64,
        preferred_clearance_m: f64,
        min_hits: u16,
    ) -> OccupancyMap {
        let cells = geometry.width * geometry.height;
        let inflation_radius_m = inflation_radius_m.max(0.0);
        let preferred_clearance_m = preferred_clearance_m.max(inflation_radius_m);
        let radius = preferred_clearance_m / geometry.resolution;
        let span = radius.floor() as isize;
        let mut reach = Vec::new();
        for d_row in -span..=span {
            for d_col in -span..=span {
                let cells_away = ((d_col * d_col + d_row * d_row) as f64).sqrt();
                if cells_away <= radius + 1e-9 {
                    reach.push((d_col, d_row, (cells_away * geometry.resolution) as f32));
                }
            }
        }
        OccupancyMap {
            geometry,
            min_hits: min_hits.max(1),
            hits: vec![0; cells],
            seen: vec![false; cells],
            occupied: vec![false; cells],
            nearest: vec![f32::INFINITY; cells],
            reach,
            inflation_radius_m,
            preferred_clearance_m,
            revision: 0,
        }
    }

    /// The grid's geometry.
    pub fn geometry(&self) -> &GridGeometry {
        &self.geometry
    }

    /// Changes whenever a cell becomes occupied (so a caller can tell the map changed).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Whether `cell` holds an obstacle.
    pub fn is_occupied(&self, cell: Cell) -> bool {
        self.occupied[self.geometry.index(cell)]
    }

    /// Whether `cell` is within the inflation radius of an obstacle (or holds one).
    pub fn is_blocked(&self, cell: Cell) -> bool {
        f64::from(self.nearest[self.geometry.index(cell)]) <= self.inflation_radius_m + 1e-6
    }

    /// The distance from `cell` to the nearest obstacle (centre to centre, m), infinite
    /// beyond the preferred clearance.
    pub fn nearest_obstacle_m(&self, cell: Cell) -> f64 {
        f64::from(self.nearest[self.geometry.index(cell)])
    }

    /// How close `cell` is to an obstacle, from 0 (at the preferred clearance or further) to
    /// 1 (at the inflation radius or nearer).
    pub fn closeness(&self, cell: Cell) -> f64 {
        let nearest = self.nearest_obstacle_m(cell);
        let band = self.preferred_clearance_m - self.inflation_radius_m;
        if nearest <= self.inflation_radius_m {
            1.0
        } else if band <= 0.0 || nearest >= self.preferred_clearance_m {
            0.0
        } else {
            (self.preferred_clearance_m - nearest) / band
        }
    }

    /// Whether a ray has crossed or ended in `cell`.
    pub fn is_seen(&self, cell: Cell) -> bool {
        self.seen[self.geometry.index(cell)]
    }

    /// How many cells are occupied.
    pub fn occupied_count(&self) -> usize {
        self.occupied.iter().filter(|o| **o).count()
    }

    /// Counts a hit at (x, y); true when the cell became occupied with it. A point outside
    /// the grid (or not finite) is dropped and gives false.
    pub fn add_hit(&mut self, x: f64, y: f64) -> bool {
        let Some(cell) = self.geometry.cell_of(x, y) else {
            return false;
        };
        let index = self.geometry.index(cell);
        self.seen[index] = true;
        self.hits[index] = self.hits[index].saturating_add(1);
        if self.occupied[index] || self.hits[index] < self.min_hits {
            return false;
        }
        self.occupied[index] = true;
        self.revision += 1;
        for &(d_col, d_row, distance) in &self.reach {
            if let Some(near) = self.geometry.offset(cell, d_col, d_row) {
                let nearest = &mut self.nearest[self.geometry.index(near)];
                *nearest = nearest.min(distance);
            }
        }
        true
    }

    /// Adds one scan taken at `pose` (the lidar's pose in the map frame): see the module
    /// documentation for what each ray does.
    pub fn add_scan(&mut self, pose: Pose2, scan: &LaserScan) -> ScanOutcome {
        let mut outcome = ScanOutcome::default();
        let range_min = f64::from(scan.range_min).max(0.0);
        let range_max = f64::from(scan.range_max);
        for (i, &range) in scan.ranges.iter().enumerate() {
            let range = f64::from(range);
            let angle =
                pose.yaw + f64::from(scan.angle_min) + i as f64 * f64::from(scan.angle_increment);
            let hit = if range.is_nan() || range == f64::NEG_INFINITY || range < range_min {
                outcome.skipped += 1;
                continue;
            } else if range >= range_max {
                outcome.no_return += 1;
                false
            } else {
                true
            };
            let reach = if hit { range } else { range_max };
            if !(reach.is_finite() && angle.is_finite()) {
                outcome.skipped += 1;
                continue;
            }
            let end = [pose.x + reach * angle.cos(), pose.y + reach * angle.sin()];
            for cell in self.geometry.cells_along([pose.x, pose.y], end) {
                let index = self.geometry.index(cell);
                self.seen[index] = true;
            }
            if hit {
                if self.geometry.cell_of(end[0], end[1]).is_none() {
                    outcome.outside += 1;
                    continue;
                }
                outcome.hits += 1;
                if self.add_hit(end[0], end[1]) {
                    outcome.newly_occupied += 1;
                }
            }
        }
        outcome
    }

    /// The map as `nav_msgs/OccupancyGrid` cells (row-major, row 0 south): 100 occupied,
    /// 60 blocked by inflation, 0 seen and free, -1 never seen.
    pub fn cell_values(&self) -> Vec<i8> {
        (0..self.occupied.len())
            .map(|index| {
                if self.occupied[index] {
                    OccupancyGrid::OCCUPIED
                } else if f64::from(self.nearest[index]) <= self.inflation_radius_m + 1e-6 {
                    INFLATED
                } else if self.seen[index] {
                    OccupancyGrid::FREE
                } else {
                    OccupancyGrid::UNKNOWN
                }
            })
            .collect()
    }
}

/// The value of a cell blocked by inflation (not itself occupied) in the published map.
pub const INFLATED: i8 = 60;

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry() -> GridGeometry {
        GridGeometry::new([-5.0, -5.0], [5.0, 5.0], 0.25).unwrap()
    }

    fn scan(ranges: Vec<f32>) -> LaserScan {
        let n = ranges.len().max(1) as f32;
        LaserScan {
            angle_min: -std::f32::consts::PI,
            angle_increment: 2.0 * std::f32::consts::PI / n,
            range_min: 0.2,
            range_max: 20.0,
            ranges,
            ..LaserScan::default()
        }
    }

    #[test]
    fn geometry_maps_points_to_cells_and_back() {
        let g = geometry();
        assert_eq!((g.width, g.height), (40, 40));
        assert_eq!(g.cell_of(-5.0, -5.0), Some(Cell { col: 0, row: 0 }));
        assert_eq!(g.cell_of(4.99, 4.99), Some(Cell { col: 39, row: 39 }));
        assert_eq!(g.cell_of(5.0, 0.0), None);
        assert_eq!(g.cell_of(-5.01, 0.0), None);
        assert_eq!(g.cell_of(f64::NAN, 0.0), None);
        let cell = g.cell_of(1.1, -2.3).unwrap();
        let [x, y] = g.center_of(cell);
        assert!((x - 1.125).abs() < 1e-12 && (y + 2.375).abs() < 1e-12);
        assert_eq!(g.index(Cell { col: 3, row: 2 }), 2 * 40 + 3);
    }

    #[test]
    fn bad_geometry_is_refused_naming_the_parameter() {
        let e = GridGeometry::new([0.0, 0.0], [1.0, 1.0], 0.0).unwrap_err();
        assert!(e.starts_with("resolution_m: 0"), "{e}");
        let e = GridGeometry::new([1.0, 0.0], [1.0, 1.0], 0.25).unwrap_err();
        assert!(e.starts_with("map_bounds_m"), "{e}");
        let e = GridGeometry::new([0.0, 0.0], [f64::NAN, 1.0], 0.25).unwrap_err();
        assert!(e.contains("NaN"), "{e}");
        let e = GridGeometry::new([-1e6, -1e6], [1e6, 1e6], 0.25).unwrap_err();
        assert!(e.contains("more than"), "{e}");
    }

    #[test]
    fn a_walk_touches_every_cell_of_the_segment() {
        let g = geometry();
        let along = g.cells_along([-4.9, -4.9], [-4.9 + 1.0, -4.9]);
        assert_eq!(along.len(), 5);
        assert!(along.iter().all(|c| c.row == 0));
        assert_eq!(along.first().unwrap().col, 0);
        assert_eq!(along.last().unwrap().col, 4);
        // A diagonal through cell corners includes the cells beside each corner.
        let diagonal = g.cells_along(
            g.center_of(Cell { col: 0, row: 0 }),
            g.center_of(Cell { col: 2, row: 2 }),
        );
        for c in [(0, 0), (1, 0), (0, 1), (1, 1), (2, 1), (1, 2), (2, 2)] {
            assert!(
                diagonal.contains(&Cell { col: c.0, row: c.1 }),
                "{c:?} missing: {diagonal:?}"
            );
        }
        assert_eq!(diagonal.last(), Some(&Cell { col: 2, row: 2 }));
        // Going west and south works the same.
        let back = g.cells_along([0.1, 0.1], [-0.9, -0.4]);
        assert_eq!(back.first(), g.cell_of(0.1, 0.1).as_ref());
        assert_eq!(back.last(), g.cell_of(-0.9, -0.4).as_ref());
        // A segment leaving the grid stops at its edge; one outside it touches nothing.
        let out = g.cells_along([4.0, 0.1], [40.0, 0.1]);
        assert_eq!(out.last().unwrap().col, 39);
        assert!(g.cells_along([10.0, 10.0], [20.0, 10.0]).is_empty());
    }

    #[test]
    fn every_walk_is_connected() {
        let g = geometry();
        let points = [
            [-4.3, 2.2],
            [3.7, -1.9],
            [0.0, 0.0],
            [4.9, 4.9],
            [-2.5, -2.5],
            [1.0, 3.0],
        ];
        for a in points {
            for b in points {
                let cells = g.cells_along(a, b);
                assert_eq!(cells.first(), g.cell_of(a[0], a[1]).as_ref());
                assert_eq!(
                    cells.last(),
                    g.cell_of(b[0], b[1]).as_ref(),
                    "{a:?} -> {b:?}"
                );
                for pair in cells.windows(2) {
                    let (dc, dr) = (
                        pair[0].col.abs_diff(pair[1].col),
                        pair[0].row.abs_diff(pair[1].row),
                    );
                    assert!(dc <= 1 && dr <= 1, "{a:?} -> {b:?}: {pair:?}");
                }
            }
        }
    }

    #[test]
    fn hits_occupy_after_min_hits_and_inflate_by_the_radius() {
        let mut map = OccupancyMap::new(geometry(), 0.6, 0.6, 2);
        let cell = map.geometry().cell_of(0.1, 0.1).unwrap();
        assert!(!map.add_hit(0.1, 0.1));
        assert!(!map.is_occupied(cell) && !map.is_blocked(cell));
        let before = map.revision();
        assert!(map.add_hit(0.1, 0.1));
        assert!(map.revision() > before);
        assert!(map.is_occupied(cell));
        // 0.6 m at 0.25 m cells: 2.4 cells; (2, 1) is 2.24 cells away, (2, 2) 2.83.
        let g = *map.geometry();
        assert!(map.is_blocked(g.offset(cell, 2, 1).unwrap()));
        assert!(map.is_blocked(g.offset(cell, 0, -2).unwrap()));
        assert!(!map.is_blocked(g.offset(cell, 2, 2).unwrap()));
        assert!(!map.is_blocked(g.offset(cell, 3, 0).unwrap()));
        assert!(!map.is_occupied(g.offset(cell, 1, 0).unwrap()));
        // More hits change nothing more.
        let revision = map.revision();
        assert!(!map.add_hit(0.1, 0.1));
        assert_eq!(map.revision(), revision);
        assert!(!map.add_hit(100.0, 0.0), "outside the grid");
        assert_eq!(map.occupied_count(), 1);
    }

    #[test]
    fn closeness_falls_from_the_inflation_to_the_preferred_clearance() {
        let mut map = OccupancyMap::new(geometry(), 0.5, 1.5, 1);
        map.add_hit(0.1, 0.1);
        let g = *map.geometry();
        let cell = g.cell_of(0.1, 0.1).unwrap();
        let at = |d_col| g.offset(cell, d_col, 0).unwrap();
        assert_eq!(map.closeness(at(2)), 1.0);
        assert!(map.is_blocked(at(2)) && !map.is_blocked(at(3)));
        assert_eq!(map.nearest_obstacle_m(at(4)), 1.0);
        assert!((map.closeness(at(4)) - 0.5).abs() < 1e-6);
        assert_eq!(map.closeness(at(6)), 0.0);
        assert_eq!(map.nearest_obstacle_m(at(7)), f64::INFINITY);
        // A second obstacle nearer wins.
        map.add_hit(1.1, 0.1);
        assert_eq!(map.closeness(at(4)), 1.0);
    }

    #[test]
    fn a_scan_marks_hits_and_sees_the_free_cells_before_them() {
        let mut map = OccupancyMap::new(geometry(), 0.6, 0.6, 1);
        // Four rays from (0.1, 0.1): west at 3 m, south no return, east at 2 m, north NaN.
        let pose = Pose2 {
            x: 0.1,
            y: 0.1,
            yaw: 0.0,
        };
        let outcome = map.add_scan(pose, &scan(vec![3.0, f32::INFINITY, 2.0, f32::NAN]));
        assert_eq!(
            outcome,
            ScanOutcome {
                hits: 2,
                newly_occupied: 2,
                no_return: 1,
                skipped: 1,
                outside: 0
            }
        );
        let g = *map.geometry();
        let at = |x, y| g.cell_of(x, y).unwrap();
        assert!(map.is_occupied(at(-2.9, 0.1)));
        assert!(map.is_occupied(at(2.1, 0.1)));
        assert!(map.is_seen(at(1.0, 0.1)));
        assert!(!map.is_occupied(at(1.0, 0.1)));
        // The no-return ray to the south is seen all the way to the grid's edge.
        assert!(map.is_seen(at(0.1, -4.9)));
        // The NaN ray to the north saw nothing.
        assert!(!map.is_seen(at(0.1, 3.0)));
        let values = map.cell_values();
        assert_eq!(values[g.index(at(2.1, 0.1))], 100);
        assert_eq!(values[g.index(at(1.6, 0.1))], INFLATED);
        assert_eq!(values[g.index(at(1.0, 0.1))], 0);
        assert_eq!(values[g.index(at(0.1, 3.0))], -1);
    }

    #[test]
    fn hits_are_never_cleared_by_later_rays() {
        let mut map = OccupancyMap::new(geometry(), 0.6, 0.6, 1);
        let pose = Pose2 {
            x: 0.1,
            y: 0.1,
            yaw: 0.0,
        };
        map.add_scan(pose, &scan(vec![2.0]));
        let cell = map.geometry().cell_of(-1.9, 0.1).unwrap();
        assert!(map.is_occupied(cell));
        // The obstacle is gone: a later ray passes through its cell.
        map.add_scan(pose, &scan(vec![4.5]));
        assert!(map.is_seen(map.geometry().cell_of(-4.3, 0.1).unwrap()));
        assert!(map.is_occupied(cell));
    }

    #[test]
    fn odd_ranges_are_skipped_or_read_as_no_return() {
        let mut map = OccupancyMap::new(geometry(), 0.6, 0.6, 1);
        let outcome = map.add_scan(
            Pose2::default(),
            &scan(vec![f32::NEG_INFINITY, 0.1, 20.0, 25.0, f32::NAN, 9.0]),
        );
        assert_eq!(outcome.skipped, 3, "{outcome:?}");
        assert_eq!(outcome.no_return, 2, "{outcome:?}");
        assert_eq!(outcome.outside, 1, "{outcome:?}");
        assert_eq!(outcome.hits, 0);
        assert_eq!(map.occupied_count(), 0);
    }

    #[test]
    fn the_pose_places_the_scan() {
        let mut map = OccupancyMap::new(geometry(), 0.6, 0.6, 1);
        // One ray at angle_min = -pi: turned by the heading pi/2 it points south.
        let pose = Pose2 {
            x: 1.1,
            y: 1.1,
            yaw: std::f64::consts::FRAC_PI_2,
        };
        map.add_scan(pose, &scan(vec![2.0]));
        assert!(map.is_occupied(map.geometry().cell_of(1.1, -0.9).unwrap()));
        assert_eq!(map.occupied_count(), 1);
    }
}
