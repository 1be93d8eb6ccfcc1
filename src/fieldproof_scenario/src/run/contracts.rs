//! `--check-contracts`: after the bring-up, before the timeline, every vehicle's bridge
//! bundle is checked against its `contract.yaml` from the runner's own node, all vehicles at
//! once, by `fieldproof_bridge`'s contract checker (what `contract_check` runs): the graph
//! (each endpoint with the contract's type), QoS, frames and rates over the header stamps.
//! The findings go in run.json (`contracts`) and the report; a failed finding fails the run.
//!
//! The `topics` check (nothing else visible under the namespace) is not made in a run: the
//! vehicle's failsafe and stack publish under its namespace too, so it is reported as
//! skipped, saying why.

use std::path::PathBuf;
use std::time::Duration;

use fieldproof_bridge::contract::collect::{self, CollectOptions};
use fieldproof_bridge::contract::eval::{self, Check, Report, Settings, Status};
use fieldproof_bridge::contract::Contract;
use fieldproof_runtime::Node;

/// How long the runner listens to a vehicle's topics before judging what arrived.
pub const LISTEN_FOR: Duration = Duration::from_secs(60);

/// The environment variable that sets the rendering sensors' rate tolerance, as for
/// `contract_check` (default: the tolerance of every other topic, 10 %).
pub const RENDER_TOLERANCE_VAR: &str = "FIELDPROOF_CONTRACT_RENDER_TOLERANCE";

/// Why a run does not make the `topics` check.
pub const TOPICS_NOT_CHECKED: &str =
    "not checked in a run: the vehicle's failsafe and stack publish under its namespace too";

/// One vehicle's check: its name and the checker's report, or why it could not be made.
pub type VehicleCheck = (String, Result<Report, String>);

/// The checker's settings in a run (the rendering tolerance from [`RENDER_TOLERANCE_VAR`]
/// when it is a number).
fn settings() -> Settings {
    let render_tolerance = std::env::var(RENDER_TOLERANCE_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|t| t.is_finite() && *t >= 0.0);
    Settings {
        render_tolerance,
        ..Settings::default()
    }
}

/// A report as a run makes it: the `topics` finding skipped ([`TOPICS_NOT_CHECKED`]), the
/// counts and the verdict recounted.
pub fn in_a_run(mut report: Report) -> Report {
    for f in report
        .findings
        .iter_mut()
        .filter(|f| f.check == Check::Topics)
    {
        f.status = Status::Skip;
        f.detail = TOPICS_NOT_CHECKED.into();
    }
    let count = |s: Status| report.findings.iter().filter(|f| f.status == s).count();
    (report.pass, report.fail, report.skip) = (
        count(Status::Pass),
        count(Status::Fail),
        count(Status::Skip),
    );
    report.passed = report.fail == 0;
    report
}

/// Why the checks fail the run: one reason per failed finding, or per check that could not
/// be made.
pub fn reasons(checks: &[VehicleCheck]) -> Vec<String> {
    let mut out = Vec::new();
    for (vehicle, check) in checks {
        match check {
            Err(why) => out.push(format!("contract of {vehicle}: {why}")),
            Ok(report) => out.extend(
                report
                    .findings
                    .iter()
                    .filter(|f| f.status == Status::Fail)
                    .map(|f| format!("contract of {vehicle}: {f}")),
            ),
        }
    }
    out
}

/// One line for the run's log: each vehicle's counts.
pub fn summary_line(checks: &[VehicleCheck]) -> String {
    let each: Vec<String> = checks
        .iter()
        .map(|(vehicle, check)| match check {
            Ok(r) => format!(
                "{vehicle} {} passed, {} failed, {} skipped",
                r.pass, r.fail, r.skip
            ),
            Err(why) => format!("{vehicle} not checked ({why})"),
        })
        .collect();
    format!("contracts: {}", each.join("; "))
}

/// Checks every vehicle's bundle (`(vehicle, bundle directory)`) at once from `node`.
pub async fn check(node: &Node, bundles: &[(String, PathBuf)]) -> Vec<VehicleCheck> {
    let settings = settings();
    let opts = CollectOptions {
        timeout: LISTEN_FOR,
        samples: settings.samples,
        ..CollectOptions::default()
    };
    let checks = bundles.iter().map(|(vehicle, bundle)| {
        let settings = settings.clone();
        async move {
            let report = match Contract::load(bundle) {
                Ok(contract) => {
                    let observed = collect::collect(node, &contract, &opts).await;
                    Ok(in_a_run(eval::evaluate(&contract, &observed, &settings)))
                }
                Err(e) => Err(e.to_string()),
            };
            (vehicle.clone(), report)
        }
    });
    futures::future::join_all(checks).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use fieldproof_bridge::contract::eval::Finding;

    fn finding(check: Check, topic: &str, status: Status, detail: &str) -> Finding {
        serde_json::from_value(serde_json::json!({
            "check": check, "topic": topic, "status": status, "detail": detail,
        }))
        .unwrap()
    }

    fn report(findings: Vec<Finding>) -> Report {
        Report {
            robot: "ugv_ref".into(),
            namespace: "/ugv1".into(),
            passed: false,
            pass: 0,
            fail: 0,
            skip: 0,
            settings: Settings::default(),
            duration_s: 3.5,
            findings,
        }
    }

    #[test]
    fn a_run_skips_the_topics_check_and_recounts() {
        let r = in_a_run(report(vec![
            finding(Check::Graph, "/ugv1/imu/data", Status::Pass, "1 publisher"),
            finding(Check::Rate, "/ugv1/imu/data", Status::Pass, "100.0 Hz"),
            finding(
                Check::Topics,
                "/ugv1",
                Status::Fail,
                "not in the contract: /ugv1/cmd_vel_nav",
            ),
        ]));
        assert!(r.passed);
        assert_eq!((r.pass, r.fail, r.skip), (2, 0, 1));
        assert_eq!(r.findings[2].detail, TOPICS_NOT_CHECKED);
    }

    #[test]
    fn each_failed_finding_is_a_reason_naming_the_vehicle() {
        let checks: Vec<VehicleCheck> = vec![
            (
                "ugv1".into(),
                Ok(in_a_run(report(vec![
                    finding(Check::Graph, "/ugv1/odom", Status::Pass, "1 publisher"),
                    finding(
                        Check::Rate,
                        "/ugv1/odom",
                        Status::Fail,
                        "41.0 Hz over the stamps, contract 50 Hz ± 10 %",
                    ),
                ]))),
            ),
            (
                "ugv2".into(),
                Err("bundles/ugv2/contract.yaml: missing".into()),
            ),
        ];
        let why = reasons(&checks);
        assert_eq!(why.len(), 2, "{why:?}");
        assert!(
            why[0].starts_with("contract of ugv1: FAIL rate")
                && why[0].contains("/ugv1/odom: 41.0 Hz"),
            "{}",
            why[0]
        );
        assert_eq!(
            why[1],
            "contract of ugv2: bundles/ugv2/contract.yaml: missing"
        );
        assert_eq!(
            summary_line(&checks),
            "contracts: ugv1 1 passed, 1 failed, 0 skipped; ugv2 not checked (bundles/ugv2/contract.yaml: missing)"
        );
    }
}
