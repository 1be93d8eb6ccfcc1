//! Routes on the occupancy grid: A* over the cells that are not blocked, then line-of-sight
//! pruning down to the few waypoints where the route turns, and the check that tells a route
//! was closed by a later scan.
//!
//! The vehicle itself may stand in a blocked cell (it drifted inside the inflation, or a
//! noisy scan put a hit near it). The rule that lets it out without ever letting a route in:
//! from a blocked cell any cell that is not occupied may follow; from a free cell only free
//! cells. A route (and a line of sight) may therefore start with a run of blocked cells, the
//! way out, and is free after it; a step inside that run costs [`ESCAPE_COST_FACTOR`] times
//! more, so the way out is short.
//!
//! Routes keep their distance: a step into a cell near an obstacle (within the preferred
//! clearance) costs up to [`CLOSENESS_COST_FACTOR`] times more, so A* goes round at the
//! preferred clearance where there is room and through a narrow gap only when it must; and
//! pruning never shortcuts nearer to an obstacle than the A* route it replaces went.

use super::grid::{Cell, OccupancyMap};

/// The cost of a step along a row or column.
const STRAIGHT_COST: u32 = 10;
/// The cost of a diagonal step (10 * sqrt 2, rounded; the heuristic uses the same costs).
const DIAGONAL_COST: u32 = 14;
/// How much more a step out of a blocked cell costs.
pub const ESCAPE_COST_FACTOR: u32 = 5;
/// How much more a step costs into a cell at the inflation's edge than into one at the
/// preferred clearance (linear in between).
pub const CLOSENESS_COST_FACTOR: u32 = 4;

/// Why there is no route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum NoRoute {
    /// The vehicle's position is outside the grid.
    #[error("the vehicle is outside the map")]
    StartOutside,
    /// The goal is outside the grid.
    #[error("the goal is outside the map")]
    GoalOutside,
    /// The goal lies within the inflation radius of an obstacle.
    #[error("the goal is within the inflated obstacles")]
    GoalBlocked,
    /// Every way to the goal is closed.
    #[error("no route: every way to the goal is closed")]
    Unreachable,
}

/// The cells a step from `from` may go to, with their costs (8-connected, no corner cutting:
/// a diagonal step needs both cells beside it passable too).
fn steps(map: &OccupancyMap, from: Cell) -> Vec<(Cell, u32)> {
    let g = map.geometry();
    let escaping = map.is_blocked(from);
    let passable = |cell: Cell| {
        if escaping {
            !map.is_occupied(cell)
        } else {
            !map.is_blocked(cell)
        }
    };
    let factor = if escaping { ESCAPE_COST_FACTOR } else { 1 };
    let mut out = Vec::with_capacity(8);
    for (d_col, d_row) in [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),
    ] {
        let Some(next) = g.offset(from, d_col, d_row) else {
            continue;
        };
        if !passable(next) {
            continue;
        }
        let diagonal = d_col != 0 && d_row != 0;
        if diagonal {
            let beside = [g.offset(from, d_col, 0), g.offset(from, 0, d_row)];
            if !beside.iter().all(|c| c.is_some_and(passable)) {
                continue;
            }
        }
        let cost = if diagonal {
            DIAGONAL_COST
        } else {
            STRAIGHT_COST
        };
        out.push((next, cost * factor));
    }
    out
}

/// The octile distance in step costs (never more than the cheapest route's cost).
fn heuristic(a: Cell, b: Cell) -> u32 {
    let (dc, dr) = (a.col.abs_diff(b.col), a.row.abs_diff(b.row));
    let (long, short) = (dc.max(dr) as u32, dc.min(dr) as u32);
    STRAIGHT_COST * (long - short) + DIAGONAL_COST * short
}

/// The A* route from `start` to `goal` (map frame, m): the points where it turns, after
/// line-of-sight pruning, starting at `start` itself and ending at `goal` itself.
pub fn plan_route(
    map: &OccupancyMap,
    start: [f64; 2],
    goal: [f64; 2],
) -> Result<Vec<[f64; 2]>, NoRoute> {
    let g = map.geometry();
    let start_cell = g.cell_of(start[0], start[1]).ok_or(NoRoute::StartOutside)?;
    let goal_cell = g.cell_of(goal[0], goal[1]).ok_or(NoRoute::GoalOutside)?;
    if map.is_blocked(goal_cell) {
        return Err(NoRoute::GoalBlocked);
    }
    let (cells, _cost) = pathfinding::directed::astar::astar(
        &start_cell,
        |cell| steps(map, *cell),
        |cell| heuristic(*cell, goal_cell),
        |cell| *cell == goal_cell,
    )
    .ok_or(NoRoute::Unreachable)?;
    // The cells' centres between the exact ends.
    let inner = cells.len().saturating_sub(2);
    let mut points = Vec::with_capacity(inner + 2);
    points.push(start);
    points.extend(cells.iter().skip(1).take(inner).map(|c| g.center_of(*c)));
    points.push(goal);
    Ok(prune(map, &points))
}

/// Whether a vehicle can go straight from `a` to `b`: the cells along the segment are free,
/// except a first run of blocked (not occupied) cells, the way out of the inflation.
pub fn line_of_sight(map: &OccupancyMap, a: [f64; 2], b: [f64; 2]) -> bool {
    let cells = map.geometry().cells_along(a, b);
    if cells.is_empty() {
        return false;
    }
    let mut leaving = true;
    for cell in cells {
        if map.is_occupied(cell) {
            return false;
        }
        let blocked = map.is_blocked(cell);
        if !blocked {
            leaving = false;
        } else if !leaving {
            return false;
        }
    }
    true
}

/// The route's turning points: from each kept point, the route is followed as far as the
/// straight line from that point stays in line of sight and no nearer to an obstacle than
/// the route itself went over that stretch. The first and last points are always kept.
pub fn prune(map: &OccupancyMap, points: &[[f64; 2]]) -> Vec<[f64; 2]> {
    let Some(&first) = points.first() else {
        return Vec::new();
    };
    let g = map.geometry();
    // How near the route came to an obstacle at each point.
    let nearest: Vec<f64> = points
        .iter()
        .map(|p| {
            g.cell_of(p[0], p[1])
                .map_or(f64::INFINITY, |c| map.nearest_obstacle_m(c))
        })
        .collect();
    let mut kept = vec![first];
    let mut anchor = 0;
    while anchor + 1 < points.len() {
        let mut next = anchor + 1;
        let mut route_nearest = nearest[anchor].min(nearest[next]);
        for candidate in anchor + 2..points.len() {
            route_nearest = route_nearest.min(nearest[candidate]);
            if !shortcut_allowed(map, points[anchor], points[candidate], route_nearest) {
                break;
            }
            next = candidate;
        }
        kept.push(points[next]);
        anchor = next;
    }
    kept
}

/// Whether the segment `a`-`b` is in line of sight and never nearer to an obstacle than
/// `route_nearest_m` (the nearest the route it would replace came).
fn shortcut_allowed(map: &OccupancyMap, a: [f64; 2], b: [f64; 2], route_nearest_m: f64) -> bool {
    line_of_sight(map, a, b)
        && map
            .geometry()
            .cells_along(a, b)
            .into_iter()
            .all(|cell| map.nearest_obstacle_m(cell) >= route_nearest_m - 1e-6)
}

/// Whether the rest of a route is closed: the legs from the vehicle's `position` through
/// each of `remaining` (the waypoints still ahead) are not all in line of sight.
pub fn route_closed(map: &OccupancyMap, position: [f64; 2], remaining: &[[f64; 2]]) -> bool {
    let mut from = position;
    for &to in remaining {
        if !line_of_sight(map, from, to) {
            return true;
        }
        from = to;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planning::grid::GridGeometry;

    /// A 20 m x 20 m map at 0.25 m, inflated by 0.6 m, one hit occupies a cell.
    fn empty_map() -> OccupancyMap {
        OccupancyMap::new(
            GridGeometry::new([-10.0, -10.0], [10.0, 10.0], 0.25).unwrap(),
            0.6,
            1.5,
            1,
        )
    }

    /// Hits along the segment from `a` to `b`, every 5 cm.
    fn wall(map: &mut OccupancyMap, a: [f64; 2], b: [f64; 2]) {
        let length = ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
        let n = (length / 0.05).ceil() as usize;
        for i in 0..=n {
            let t = i as f64 / n as f64;
            map.add_hit(a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]));
        }
    }

    /// The distance from `p` to segment `a`-`b`.
    fn distance_to_segment(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
        let d = [b[0] - a[0], b[1] - a[1]];
        let len2 = d[0] * d[0] + d[1] * d[1];
        let t = if len2 == 0.0 {
            0.0
        } else {
            (((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / len2).clamp(0.0, 1.0)
        };
        let q = [a[0] + t * d[0], a[1] + t * d[1]];
        ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2)).sqrt()
    }

    /// The smallest distance from any leg of `route` to the wall segment `a`-`b`, sampled.
    fn clearance(route: &[[f64; 2]], a: [f64; 2], b: [f64; 2]) -> f64 {
        let mut best = f64::INFINITY;
        for leg in route.windows(2) {
            for i in 0..=200 {
                let t = f64::from(i) / 200.0;
                let p = [
                    leg[0][0] + t * (leg[1][0] - leg[0][0]),
                    leg[0][1] + t * (leg[1][1] - leg[0][1]),
                ];
                best = best.min(distance_to_segment(p, a, b));
            }
        }
        best
    }

    #[test]
    fn an_empty_map_gives_the_straight_line() {
        let map = empty_map();
        let route = plan_route(&map, [-8.0, -3.0], [7.0, 4.0]).unwrap();
        assert_eq!(route, vec![[-8.0, -3.0], [7.0, 4.0]]);
        assert!(!route_closed(&map, [-8.0, -3.0], &route[1..]));
    }

    #[test]
    fn a_wall_is_passed_around_with_the_inflation_as_clearance() {
        let mut map = empty_map();
        let (a, b) = ([0.0, -5.0], [0.0, 5.0]);
        wall(&mut map, a, b);
        let route = plan_route(&map, [-6.0, 0.0], [6.0, 0.0]).unwrap();
        assert!(route.len() >= 3, "{route:?}");
        assert_eq!(route.first(), Some(&[-6.0, 0.0]));
        assert_eq!(route.last(), Some(&[6.0, 0.0]));
        // Beyond an end of the wall, at about the preferred clearance (1.5 m) where there is
        // room, and never within the inflation.
        let margin = clearance(&route, a, b);
        assert!(margin >= 0.8, "clearance {margin}: {route:?}");
        assert!(route.iter().any(|p| p[1].abs() > 5.0), "{route:?}");
        // Every leg is in line of sight and no cell on it is blocked.
        for leg in route.windows(2) {
            assert!(line_of_sight(&map, leg[0], leg[1]));
            for cell in map.geometry().cells_along(leg[0], leg[1]) {
                assert!(!map.is_blocked(cell), "{leg:?} crosses {cell:?}");
            }
        }
    }

    #[test]
    fn a_scan_that_closes_the_route_makes_a_new_one() {
        let mut map = empty_map();
        let route = plan_route(&map, [-6.0, 0.0], [6.0, 0.0]).unwrap();
        assert!(!route_closed(&map, [-6.0, 0.0], &route[1..]));
        // A wall appears across the straight line.
        wall(&mut map, [0.0, -4.0], [0.0, 4.0]);
        assert!(route_closed(&map, [-6.0, 0.0], &route[1..]));
        let replanned = plan_route(&map, [-6.0, 0.0], [6.0, 0.0]).unwrap();
        assert_ne!(replanned, route);
        assert!(!route_closed(&map, [-6.0, 0.0], &replanned[1..]));
        // A wall well away from the new route leaves it open.
        wall(&mut map, [-3.0, 9.5], [3.0, 9.5]);
        wall(&mut map, [-3.0, -9.5], [3.0, -9.5]);
        assert!(
            !route_closed(&map, [-6.0, 0.0], &replanned[1..]),
            "{replanned:?}"
        );
    }

    #[test]
    fn an_enclosed_goal_is_unreachable_and_a_goal_in_the_inflation_is_refused() {
        let mut map = empty_map();
        // A closed box around (5, 5).
        wall(&mut map, [3.0, 3.0], [7.0, 3.0]);
        wall(&mut map, [7.0, 3.0], [7.0, 7.0]);
        wall(&mut map, [7.0, 7.0], [3.0, 7.0]);
        wall(&mut map, [3.0, 7.0], [3.0, 3.0]);
        assert_eq!(
            plan_route(&map, [-5.0, -5.0], [5.0, 5.0]),
            Err(NoRoute::Unreachable)
        );
        assert_eq!(
            plan_route(&map, [-5.0, -5.0], [3.3, 5.0]),
            Err(NoRoute::GoalBlocked)
        );
        assert_eq!(
            plan_route(&map, [-5.0, -5.0], [50.0, 5.0]),
            Err(NoRoute::GoalOutside)
        );
        assert_eq!(
            plan_route(&map, [-50.0, -5.0], [0.0, 0.0]),
            Err(NoRoute::StartOutside)
        );
    }

    #[test]
    fn a_vehicle_inside_the_inflation_gets_out_first() {
        let mut map = empty_map();
        wall(&mut map, [0.0, -5.0], [0.0, 5.0]);
        // 0.4 m west of the wall: blocked, not occupied.
        let start = [-0.4, 0.0];
        let cell = map.geometry().cell_of(start[0], start[1]).unwrap();
        assert!(map.is_blocked(cell) && !map.is_occupied(cell));
        let route = plan_route(&map, start, [-6.0, 0.0]).unwrap();
        assert_eq!(route.first(), Some(&start));
        assert_eq!(route.last(), Some(&[-6.0, 0.0]));
        // Heading away from the wall the first leg is a way out, not into it.
        assert!(line_of_sight(&map, route[0], route[1]));
        // But a line of sight may not go back into the inflation once out of it.
        assert!(!line_of_sight(&map, [-3.0, 0.0], [-0.4, 0.0]));
        assert!(!line_of_sight(&map, [-3.0, 0.0], [3.0, 0.0]));
    }

    #[test]
    fn a_narrow_gap_is_taken_when_it_is_the_only_way() {
        let mut map = empty_map();
        // A wall across the map with a 2 m gap at y = 0: inside the preferred clearance of
        // both sides, outside their inflation.
        wall(&mut map, [0.0, -10.0], [0.0, -1.0]);
        wall(&mut map, [0.0, 1.0], [0.0, 10.0]);
        let route = plan_route(&map, [-6.0, 0.0], [6.0, 0.0]).unwrap();
        for leg in route.windows(2) {
            for cell in map.geometry().cells_along(leg[0], leg[1]) {
                assert!(!map.is_blocked(cell), "{leg:?} crosses {cell:?}");
            }
        }
        let through_the_gap = route
            .windows(2)
            .any(|leg| leg[0][0] < 0.0 && leg[1][0] >= 0.0);
        assert!(through_the_gap, "{route:?}");
    }

    #[test]
    fn a_shortcut_may_not_come_nearer_an_obstacle_than_the_route() {
        let mut map = empty_map();
        map.add_hit(0.1, 0.1);
        // Points going round the hit at 2 m: no shortcut past it at 1 m.
        let around = [[-2.0, 0.1], [-1.4, 1.5], [0.1, 2.1], [1.6, 1.5], [2.1, 0.1]];
        // Each shortcut would pass within 1.5 m (the preferred clearance) of the hit, which
        // the route never does: every point is kept (line of sight alone would drop two).
        assert_eq!(prune(&map, &around), around);
        assert!(line_of_sight(&map, around[0], around[2]));
    }

    #[test]
    fn pruning_keeps_the_corners_only() {
        let map = empty_map();
        let points: Vec<[f64; 2]> = (0..=10).map(|i| [f64::from(i) * 0.5, 0.0]).collect();
        assert_eq!(prune(&map, &points), vec![[0.0, 0.0], [5.0, 0.0]]);
        assert_eq!(prune(&map, &[]), Vec::<[f64; 2]>::new());
        assert_eq!(prune(&map, &[[1.0, 1.0]]), vec![[1.0, 1.0]]);
    }

    #[test]
    fn the_heuristic_never_overestimates() {
        let map = empty_map();
        let g = *map.geometry();
        let start = Cell { col: 3, row: 7 };
        for goal in [
            Cell { col: 30, row: 9 },
            Cell { col: 3, row: 50 },
            Cell { col: 60, row: 60 },
        ] {
            let (_, cost) = pathfinding::directed::astar::astar(
                &start,
                |c| steps(&map, *c),
                |_| 0,
                |c| *c == goal,
            )
            .unwrap();
            assert!(heuristic(start, goal) <= cost, "{goal:?}");
            assert!(g.index(goal) < g.width * g.height);
        }
    }
}
