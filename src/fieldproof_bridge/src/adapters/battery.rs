//! `battery`'s model: a synthetic `sensor_msgs/BatteryState` from the manifest's
//! `power.battery`: 100 % and the full voltage until a drain makes the percentage fall,
//! linearly in simulation time, to a target over a duration (`battery.drain`); the voltage
//! follows between empty and full; the status is DISCHARGING while the drain runs, FULL at
//! 100 % and NOT_CHARGING otherwise.

use fieldproof_msgs::sensor_msgs::BatteryState;

/// The manifest's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct BatterySpec {
    /// Voltage at 100 %, V.
    pub full_voltage_v: f64,
    /// Voltage at 0 %, V.
    pub empty_voltage_v: f64,
    /// Capacity, Ah.
    pub capacity_ah: f64,
    /// Frame of the messages.
    pub frame_id: String,
}

/// A linear drain in progress.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ramp {
    from: f64,
    to: f64,
    start_ns: i64,
    duration_ns: i64,
}

/// The battery's state over simulation time.
#[derive(Debug, Clone, PartialEq)]
pub struct BatteryModel {
    spec: BatterySpec,
    percentage: f64,
    ramp: Option<Ramp>,
}

impl BatteryModel {
    /// A full battery.
    pub fn new(spec: BatterySpec) -> Self {
        Self {
            spec,
            percentage: 1.0,
            ramp: None,
        }
    }

    /// Set the state at once (parameter `percentage`, 0 to 1); cancels a drain.
    pub fn set_percentage(&mut self, percentage: f64) {
        self.percentage = percentage.clamp(0.0, 1.0);
        self.ramp = None;
    }

    /// Start draining from the present percentage to `to` (0 to 1) over `duration_s` of
    /// simulation time from `now_ns` (parameters `drain_to`, then `drain_duration_s`).
    /// A zero duration drains at once.
    pub fn start_drain(&mut self, now_ns: i64, to: f64, duration_s: f64) {
        let from = self.percentage_at(now_ns);
        let to = to.clamp(0.0, 1.0);
        if duration_s <= 0.0 {
            self.set_percentage(to);
            return;
        }
        self.percentage = from;
        self.ramp = Some(Ramp {
            from,
            to,
            start_ns: now_ns,
            duration_ns: (duration_s * 1e9) as i64,
        });
    }

    /// The percentage (0 to 1) at `now_ns`.
    pub fn percentage_at(&self, now_ns: i64) -> f64 {
        match self.ramp {
            None => self.percentage,
            Some(r) => {
                let t = ((now_ns - r.start_ns) as f64 / r.duration_ns as f64).clamp(0.0, 1.0);
                r.from + (r.to - r.from) * t
            }
        }
    }

    /// Whether a drain is still running at `now_ns`.
    pub fn draining_at(&self, now_ns: i64) -> bool {
        self.ramp
            .is_some_and(|r| now_ns < r.start_ns + r.duration_ns)
    }

    /// The message for `now_ns` (header stamp left to the caller).
    pub fn state_at(&self, now_ns: i64) -> BatteryState {
        let p = self.percentage_at(now_ns);
        let status = if self.draining_at(now_ns) {
            BatteryState::POWER_SUPPLY_STATUS_DISCHARGING
        } else if p >= 1.0 {
            BatteryState::POWER_SUPPLY_STATUS_FULL
        } else {
            BatteryState::POWER_SUPPLY_STATUS_NOT_CHARGING
        };
        let s = &self.spec;
        let mut msg = BatteryState {
            voltage: (s.empty_voltage_v + (s.full_voltage_v - s.empty_voltage_v) * p) as f32,
            temperature: f32::NAN,
            current: f32::NAN,
            charge: (s.capacity_ah * p) as f32,
            capacity: s.capacity_ah as f32,
            design_capacity: s.capacity_ah as f32,
            percentage: p as f32,
            power_supply_status: status,
            power_supply_health: BatteryState::POWER_SUPPLY_HEALTH_GOOD,
            power_supply_technology: BatteryState::POWER_SUPPLY_TECHNOLOGY_LION,
            present: true,
            ..Default::default()
        };
        msg.header.frame_id.clone_from(&s.frame_id);
        msg
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;

    fn model() -> BatteryModel {
        BatteryModel::new(BatterySpec {
            full_voltage_v: 25.2,
            empty_voltage_v: 19.8,
            capacity_ah: 10.0,
            frame_id: "base_link".into(),
        })
    }

    #[test]
    fn full_until_drained_then_linear_ramp() {
        let mut b = model();
        let full = b.state_at(0);
        assert_eq!(full.percentage, 1.0);
        assert!((full.voltage - 25.2).abs() < 1e-5);
        assert_eq!(
            full.power_supply_status,
            BatteryState::POWER_SUPPLY_STATUS_FULL
        );
        assert_eq!(full.header.frame_id, "base_link");

        b.start_drain(10 * S, 0.2, 40.0);
        let mid = b.state_at(30 * S);
        assert!((mid.percentage - 0.6).abs() < 1e-6, "{}", mid.percentage);
        assert!((mid.voltage - (19.8 + 5.4 * 0.6) as f32).abs() < 1e-4);
        assert!((mid.charge - 6.0).abs() < 1e-5);
        assert_eq!(
            mid.power_supply_status,
            BatteryState::POWER_SUPPLY_STATUS_DISCHARGING
        );

        let end = b.state_at(60 * S);
        assert!((end.percentage - 0.2).abs() < 1e-6);
        assert_eq!(
            end.power_supply_status,
            BatteryState::POWER_SUPPLY_STATUS_NOT_CHARGING
        );
    }

    #[test]
    fn a_new_drain_starts_where_the_battery_is() {
        let mut b = model();
        b.start_drain(0, 0.0, 10.0);
        b.start_drain(5 * S, 0.4, 10.0); // at 0.5 now
        assert!((b.percentage_at(5 * S) - 0.5).abs() < 1e-9);
        assert!((b.percentage_at(10 * S) - 0.45).abs() < 1e-9);
        b.set_percentage(0.9);
        assert!(!b.draining_at(11 * S));
        assert!((b.percentage_at(100 * S) - 0.9).abs() < 1e-9);
    }
}
