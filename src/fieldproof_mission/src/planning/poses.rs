//! The recent estimated poses, so a scan is placed with the pose at its own stamp rather
//! than with the newest one (at 2 m/s the 0.1 s between two scans is 0.2 m).

use std::collections::VecDeque;

use super::grid::Pose2;

/// How many poses are kept (2.5 s of a 20 Hz estimate).
const KEPT: usize = 50;

/// The newest poses by stamp (ns).
#[derive(Debug, Clone, Default)]
pub struct PoseHistory {
    poses: VecDeque<(i64, Pose2)>,
}

impl PoseHistory {
    /// An empty history.
    pub fn new() -> PoseHistory {
        PoseHistory::default()
    }

    /// Adds a pose stamped `stamp_ns`; one older than the newest is dropped (estimates come in
    /// order; a late one adds nothing the newer ones do not tell).
    pub fn push(&mut self, stamp_ns: i64, pose: Pose2) {
        if self
            .poses
            .back()
            .is_some_and(|(newest, _)| stamp_ns < *newest)
        {
            return;
        }
        if self.poses.len() == KEPT {
            self.poses.pop_front();
        }
        self.poses.push_back((stamp_ns, pose));
    }

    /// The newest pose.
    pub fn newest(&self) -> Option<Pose2> {
        self.poses.back().map(|(_, pose)| *pose)
    }

    /// The pose at `stamp_ns`: interpolated between the two around it; the newest if the
    /// stamp is after it by `max_extrapolation_ns` at most; `None` before the oldest or
    /// further after the newest (a scan that cannot be placed).
    pub fn at(&self, stamp_ns: i64, max_extrapolation_ns: i64) -> Option<Pose2> {
        let (newest_ns, newest) = *self.poses.back()?;
        if stamp_ns >= newest_ns {
            return (stamp_ns - newest_ns <= max_extrapolation_ns).then_some(newest);
        }
        let after = self.poses.iter().position(|(t, _)| *t >= stamp_ns)?;
        let (t1, p1) = self.poses[after];
        if after == 0 {
            return (t1 == stamp_ns).then_some(p1);
        }
        let (t0, p0) = self.poses[after - 1];
        let f = (stamp_ns - t0) as f64 / (t1 - t0) as f64;
        let mut turn = p1.yaw - p0.yaw;
        turn =
            (turn + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
        Some(Pose2 {
            x: p0.x + f * (p1.x - p0.x),
            y: p0.y + f * (p1.y - p0.y),
            yaw: p0.yaw + f * turn,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pose(x: f64, yaw: f64) -> Pose2 {
        Pose2 { x, y: 0.0, yaw }
    }

    #[test]
    fn poses_between_two_are_interpolated() {
        let mut h = PoseHistory::new();
        assert_eq!(h.at(0, 0), None);
        h.push(1_000, pose(0.0, 3.0));
        h.push(2_000, pose(1.0, -3.0));
        let p = h.at(1_500, 0).unwrap();
        assert!((p.x - 0.5).abs() < 1e-12);
        // The short way round through pi, not through 0.
        assert!(
            (p.yaw.abs() - std::f64::consts::PI).abs() < 0.3,
            "{}",
            p.yaw
        );
        assert_eq!(h.at(1_000, 0), Some(pose(0.0, 3.0)));
        assert_eq!(h.at(2_000, 0), Some(pose(1.0, -3.0)));
    }

    #[test]
    fn too_old_or_too_new_stamps_have_no_pose() {
        let mut h = PoseHistory::new();
        h.push(1_000, pose(0.0, 0.0));
        h.push(2_000, pose(1.0, 0.0));
        assert_eq!(h.at(999, 500), None);
        assert_eq!(h.at(2_400, 500), Some(pose(1.0, 0.0)));
        assert_eq!(h.at(2_501, 500), None);
        // A late pose is ignored; the history is bounded.
        h.push(1_500, pose(9.0, 0.0));
        assert_eq!(h.newest(), Some(pose(1.0, 0.0)));
        for i in 0..200 {
            h.push(3_000 + i, pose(2.0, 0.0));
        }
        assert_eq!(h.poses.len(), KEPT);
    }
}
