//! Process-level tests: example nodes started as processes, driven over DDS by a peer
//! node in the test process. Each test uses its own ROS domain. Run inside the project's
//! network namespace: `scripts/netns-run cargo test -p fieldproof_runtime`.

mod common;

use std::time::Duration;

use common::{call, timeout, Proc};
use fieldproof_runtime::msgs::builtin_interfaces::Time;
use fieldproof_runtime::msgs::rcl_interfaces::Log;
use fieldproof_runtime::msgs::rosgraph_msgs::Clock;
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::value::set_parameters_request;
use fieldproof_runtime::{qos, ParamValue};
use ros2_client::parameters::raw;
use ros2_client::rcl_interfaces::{
    DescribeParametersRequest, DescribeParametersResponse, GetParametersRequest,
    GetParametersResponse, ListParametersRequest, ListParametersResponse,
    SetParametersAtomicallyResponse, SetParametersRequest, SetParametersResponse,
};

const LONG: Duration = Duration::from_secs(20);

fn get_values(names: &[&str]) -> GetParametersRequest {
    GetParametersRequest {
        names: names.iter().map(|s| s.to_string()).collect(),
    }
}

fn values(r: &GetParametersResponse) -> Vec<Option<ParamValue>> {
    r.values.iter().map(ParamValue::from_raw).collect()
}

#[test]
fn malformed_ros_args_exit_2_naming_the_argument() {
    fieldproof_testkit::contain_or_return!();
    for (args, needle) in [
        (vec!["--ros-args", "--bogus"], "--bogus"),
        (vec!["--ros-args", "-r", "nocolon"], "nocolon"),
        (vec!["--ros-args", "-r", "__ns:=relative"], "__ns:=relative"),
        (vec!["--ros-args", "-p"], "-p"),
        (vec!["--ros-args", "-p", "rate_hz:=fast"], "rate_hz"),
        (vec!["--ros-args", "-p", "rate_hz:=5000.0"], "rate_hz"),
        (
            vec!["--ros-args", "--params-file", "/nonexistent.yaml"],
            "/nonexistent.yaml",
        ),
        (vec!["--ros-args", "--log-level", "loud"], "loud"),
    ] {
        let mut p = Proc::start("talker", 90, &args);
        let st = p.wait_exit(LONG);
        assert_eq!(st.code(), Some(2), "{args:?}: {st:?}");
        let lines = p.lines();
        assert!(
            lines
                .iter()
                .any(|l| l.contains("error") && l.contains(needle)),
            "{args:?}: stderr does not name {needle:?}: {lines:#?}"
        );
    }
}

#[test]
fn help_lists_the_declared_parameters_and_exits_0_without_starting_the_node() {
    fieldproof_testkit::contain_or_return!();
    common::require_netns(); // were --help to start the node, its DDS traffic stays contained
    for flag in ["--help", "-h"] {
        let out = std::process::Command::new(common::example("talker"))
            .args([flag, "--ros-args", "-r", "__ns:=/x"])
            .env("ROS_DOMAIN_ID", "91")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("talker runs");
        assert_eq!(out.status.code(), Some(0), "{flag}: {out:?}");
        let help = String::from_utf8(out.stdout).unwrap();
        assert!(help.starts_with("talker: ROS 2 node 'talker'"), "{help}");
        assert!(
            help.contains("  rate_hz (double, default 2.0, range [0.1, 1000]"),
            "{help}"
        );
        assert!(help.contains("      text to publish"), "{help}");
        assert!(
            help.contains("  qos_reliability (string, default 'reliable'"),
            "{help}"
        );
        assert!(
            out.stderr.is_empty(),
            "the node logged, so it started: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // After --ros-args, `-h` is not the node's to take: a malformed ROS argument, exit 2.
    let mut p = Proc::start("talker", 91, &["--ros-args", "-h"]);
    assert_eq!(p.wait_exit(LONG).code(), Some(2));
}

#[test]
fn names_and_parameters_come_from_the_command_line() {
    fieldproof_testkit::contain_or_return!();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("params.yaml");
    std::fs::write(
        &file,
        "/**:\n  ros__parameters:\n    message: from_wildcard\n    rate_hz: 4.0\n    qos_reliability: best_effort\n\
         /y/x:\n  ros__parameters:\n    message: from_file\n    rate_hz: 5.0\n",
    )
    .unwrap();
    let proc = Proc::start(
        "talker",
        91,
        &[
            "--ros-args",
            "-r",
            "__node:=x",
            "-r",
            "__ns:=/y",
            "-p",
            "rate_hz:=3.0",
            "--params-file",
            file.to_str().unwrap(),
            "-p",
            "qos_depth:=7",
        ],
    );
    fieldproof_runtime::run_on_domain("names_peer", 91, |node| async move {
        // the node is in the graph under its remapped name and namespace
        timeout(LONG, node.wait_for_node("/y/x"))
            .await
            .expect("/y/x never appeared in ros_discovery_info");
        let get = node.client::<GetParametersRequest, GetParametersResponse>(
            "/y/x/get_parameters",
            "rcl_interfaces/srv/GetParameters",
        )?;
        timeout(LONG, get.wait_for_service())
            .await
            .expect("get_parameters never became ready");
        let nobody = node.client::<GetParametersRequest, GetParametersResponse>(
            "/y/nobody/get_parameters",
            "rcl_interfaces/srv/GetParameters",
        )?;
        assert!(!nobody.service_is_ready());
        let r = call(
            &get,
            get_values(&[
                "message",
                "rate_hz",
                "qos_reliability",
                "qos_depth",
                "topic",
            ]),
            Duration::from_secs(1),
            20,
        )
        .await;
        assert_eq!(
            values(&r),
            vec![
                Some(ParamValue::String("from_file".into())), // node section beats /**
                Some(ParamValue::Double(3.0)),                // -p beats the file
                Some(ParamValue::String("best_effort".into())), // /** beats the default
                Some(ParamValue::Integer(7)),
                Some(ParamValue::String("chatter".into())),
            ]
        );
        // as rclcpp: naming an undeclared parameter gets an empty answer
        let r = call(
            &get,
            get_values(&["message", "nope"]),
            Duration::from_secs(1),
            20,
        )
        .await;
        assert!(r.values.is_empty(), "{:?}", r.values);
        let list = node.client::<ListParametersRequest, ListParametersResponse>(
            "/y/x/list_parameters",
            "rcl_interfaces/srv/ListParameters",
        )?;
        let l = call(
            &list,
            ListParametersRequest {
                prefixes: vec![],
                depth: 0,
            },
            Duration::from_secs(1),
            20,
        )
        .await;
        for n in ["message", "rate_hz", "qos_reliability", "use_sim_time"] {
            assert!(l.result.names.iter().any(|x| x == n), "{n} not listed");
        }
        let describe = node.client::<DescribeParametersRequest, DescribeParametersResponse>(
            "/y/x/describe_parameters",
            "rcl_interfaces/srv/DescribeParameters",
        )?;
        let d = call(
            &describe,
            DescribeParametersRequest {
                names: vec!["rate_hz".into(), "topic".into()],
            },
            Duration::from_secs(1),
            20,
        )
        .await;
        assert_eq!(d.values[0].description, "publishing rate in ROS time");
        assert_eq!(d.values[0].r#type, 3);
        assert_eq!(d.values[0].floating_point_range[0].from_value, 0.1);
        assert_eq!(d.values[0].floating_point_range[0].to_value, 1000.0);
        assert!(d.values[1].read_only);
        // the publisher is on the namespaced topic, best effort, with the file's message
        let sub = node.subscription::<std_msgs::String>("/y/chatter", qos::sensor_data())?;
        let m = timeout(LONG, sub.recv())
            .await
            .expect("no message on /y/chatter")?;
        assert!(m.data.starts_with("from_file "), "{m:?}");
        Ok(())
    })
    .expect("peer run");
    // logs carry the remapped logger name
    assert!(
        proc.count("[y.x]: publishing on /y/chatter at 3 Hz") == 1,
        "{:#?}",
        proc.lines()
    );
}

#[test]
fn set_parameters_takes_effect_and_bad_values_are_rejected() {
    fieldproof_testkit::contain_or_return!();
    let proc = Proc::start(
        "talker",
        92,
        &["--ros-args", "-r", "__node:=setter", "-p", "rate_hz:=20.0"],
    );
    let procr = &proc;
    fieldproof_runtime::run_on_domain("set_peer", 92, |node| async move {
        timeout(LONG, node.wait_for_node("/setter"))
            .await
            .expect("/setter never appeared");
        let set = node.client::<SetParametersRequest, SetParametersResponse>(
            "/setter/set_parameters",
            "rcl_interfaces/srv/SetParameters",
        )?;
        let get = node.client::<GetParametersRequest, GetParametersResponse>(
            "/setter/get_parameters",
            "rcl_interfaces/srv/GetParameters",
        )?;
        let events =
            node.subscription::<ParamEvent>("/parameter_events", qos::parameter_events())?;
        let chatter = node.subscription::<std_msgs::String>("/chatter", qos::default())?;
        let each = Duration::from_secs(1);

        // a good value: accepted, announced, and the node uses it. The event subscription
        // is new and volatile: until discovery matched it an event can pass it by, so set
        // (the same value) again until one arrives.
        let mut ev = None;
        for _ in 0..20 {
            let r = call(
                &set,
                set_parameters_request([("message", ParamValue::String("changed".into()))]),
                each,
                20,
            )
            .await;
            assert!(r.results[0].successful, "{:?}", r.results);
            ev = timeout(each, async {
                loop {
                    let e = events.recv().await.unwrap();
                    if e.node == "/setter"
                        && e.changed_parameters.iter().any(|p| p.name == "message")
                    {
                        return e;
                    }
                }
            })
            .await;
            if ev.is_some() {
                break;
            }
        }
        let ev = ev.expect("no /parameter_events for message");
        assert_eq!(
            ParamValue::from_raw(&ev.changed_parameters[0].value),
            Some(ParamValue::String("changed".into()))
        );
        timeout(LONG, async {
            while !chatter.recv().await.unwrap().data.starts_with("changed ") {}
        })
        .await
        .expect("talker never published the new message");

        // the node reacts to a new rate at once (through Node::param_changes)
        let r = call(
            &set,
            set_parameters_request([("rate_hz", ParamValue::Double(50.0))]),
            each,
            20,
        )
        .await;
        assert!(r.results[0].successful, "{:?}", r.results);
        procr
            .wait_line("publishing on /chatter at 50 Hz", LONG)
            .await;
        let r = call(
            &set,
            set_parameters_request([("rate_hz", ParamValue::Double(20.0))]),
            each,
            20,
        )
        .await;
        assert!(r.results[0].successful, "{:?}", r.results);

        // bad values: rejected with a reason, old value kept
        let r = call(
            &set,
            set_parameters_request([
                ("rate_hz", ParamValue::Double(5000.0)),
                ("rate_hz", ParamValue::String("fast".into())),
                ("topic", ParamValue::String("other".into())),
                ("undeclared", ParamValue::Integer(1)),
            ]),
            each,
            20,
        )
        .await;
        let reasons: Vec<(bool, String)> = r
            .results
            .iter()
            .map(|x| (x.successful, x.reason.clone()))
            .collect();
        assert!(
            !reasons[0].0 && reasons[0].1.contains("range"),
            "{reasons:?}"
        );
        assert!(
            !reasons[1].0 && reasons[1].1.contains("type"),
            "{reasons:?}"
        );
        assert!(
            !reasons[2].0 && reasons[2].1.contains("read-only"),
            "{reasons:?}"
        );
        assert!(
            !reasons[3].0 && reasons[3].1.contains("declared"),
            "{reasons:?}"
        );
        let v = call(&get, get_values(&["rate_hz", "topic"]), each, 20).await;
        assert_eq!(
            values(&v),
            vec![
                Some(ParamValue::Double(20.0)),
                Some(ParamValue::String("chatter".into()))
            ]
        );

        // atomically: one bad value rejects all
        let atomic = node.client::<SetParametersRequest, SetParametersAtomicallyResponse>(
            "/setter/set_parameters_atomically",
            "rcl_interfaces/srv/SetParametersAtomically",
        )?;
        let r = call(
            &atomic,
            set_parameters_request([
                ("message", ParamValue::String("atomic".into())),
                ("rate_hz", ParamValue::Double(-1.0)),
            ]),
            each,
            20,
        )
        .await;
        assert!(
            !r.result.successful && r.result.reason.contains("rate_hz"),
            "{:?}",
            r.result
        );
        let v = call(&get, get_values(&["message"]), each, 20).await;
        assert_eq!(values(&v), vec![Some(ParamValue::String("changed".into()))]);
        Ok(())
    })
    .expect("peer run");
    assert!(proc.count("Publishing: 'changed ") >= 1);
}

/// `rcl_interfaces/msg/ParameterEvent`, for the test subscription.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct ParamEvent {
    stamp: Time,
    node: String,
    new_parameters: Vec<raw::Parameter>,
    changed_parameters: Vec<raw::Parameter>,
    deleted_parameters: Vec<raw::Parameter>,
}
impl fieldproof_runtime::msgs::RosMessage for ParamEvent {
    const TYPE_NAME: &'static str = "rcl_interfaces/msg/ParameterEvent";
}

#[test]
fn sim_time_timer_ticks_20_times_for_one_simulated_second() {
    fieldproof_testkit::contain_or_return!();
    let proc = Proc::start(
        "talker",
        93,
        &[
            "--ros-args",
            "-r",
            "__node:=simtalker",
            "-p",
            "use_sim_time:=true",
            "-p",
            "rate_hz:=20.0",
        ],
    );
    fieldproof_runtime::run_on_domain("clock_peer", 93, |node| {
        let proc = &proc;
        async move {
            // the timer exists once this is logged (it is created just before)
            proc.wait_line("publishing on /chatter at 20 Hz", LONG)
                .await;
            let clock = node.publisher::<Clock>("/clock", qos::clock())?;
            timeout(LONG, clock.wait_for_subscriptions(1))
                .await
                .expect("the node never subscribed /clock");
            // no tick while /clock is silent
            async_io::Timer::after(Duration::from_millis(300)).await;
            assert_eq!(proc.count("Publishing:"), 0);
            let send = |ms: i64| {
                clock.publish(Clock {
                    clock: Time::from_nanos(ms * 1_000_000),
                })
            };
            // 1 s of simulation time in 10 ms steps. At each 50 ms boundary wait for the
            // tick (resending that time: /clock is best effort, keep last 1, so a sample
            // can be lost or overwritten on a loaded machine), then check it was the only
            // one: exactly one tick per 50 ms of simulation time, whatever the wall rate.
            let mut ticks = 0;
            for ms in (0..=1000).step_by(10) {
                send(ms)?;
                async_io::Timer::after(Duration::from_millis(2)).await;
                if ms > 0 && ms % 50 == 0 {
                    ticks += 1;
                    let line = format!("Publishing: 'hello {ticks}'");
                    timeout(LONG, async {
                        while proc.count(&line) == 0 {
                            send(ms).unwrap();
                            async_io::Timer::after(Duration::from_millis(20)).await;
                        }
                    })
                    .await
                    .unwrap_or_else(|| panic!("no tick {ticks} at sim time {ms} ms"));
                    assert_eq!(proc.count("Publishing:"), ticks, "at {ms} ms");
                }
            }
            // time stands still at 1.0 s: no 21st tick however long we wait
            for _ in 0..5 {
                send(1000)?;
                async_io::Timer::after(Duration::from_millis(50)).await;
            }
            Ok(())
        }
    })
    .expect("peer run");
    assert_eq!(proc.count("Publishing:"), 20, "{:#?}", proc.lines());
}

#[test]
fn sigterm_makes_the_node_leave_the_graph() {
    fieldproof_testkit::contain_or_return!();
    let mut proc = Proc::start("talker", 94, &["--ros-args", "-r", "__node:=leaver"]);
    fieldproof_runtime::run_on_domain("leave_peer", 94, |node| {
        let proc = &mut proc;
        async move {
            timeout(LONG, node.wait_for_node("/leaver"))
                .await
                .expect("/leaver never appeared");
            let sub = node.subscription::<std_msgs::String>("/chatter", qos::default())?;
            timeout(LONG, sub.wait_for_publishers(1))
                .await
                .expect("talker's publisher never matched");
            proc.signal("TERM");
            let st = proc.wait_exit_async(LONG).await;
            assert_eq!(st.code(), Some(0), "{st:?}");
            // gone at once (its goodbye), far sooner than a lease expiry
            timeout(Duration::from_secs(5), node.wait_for_node_gone("/leaver"))
                .await
                .expect("/leaver still in the graph after exit");
            timeout(Duration::from_secs(5), async {
                while sub.publisher_count() > 0 {
                    async_io::Timer::after(Duration::from_millis(20)).await;
                }
            })
            .await
            .expect("talker's publisher still matched after exit");
            Ok(())
        }
    })
    .expect("peer run");
    assert_eq!(proc.count("SIGTERM received, shutting down"), 1);
}

#[test]
fn logs_go_to_rosout_and_respect_the_log_level() {
    fieldproof_testkit::contain_or_return!();
    let proc = Proc::start(
        "talker",
        96,
        &[
            "--ros-args",
            "-r",
            "__node:=quiet",
            "-r",
            "__ns:=/logs",
            "--log-level",
            "warn",
        ],
    );
    fieldproof_runtime::run_on_domain("log_peer", 96, |node| {
        let proc = &proc;
        async move {
            // asking for a parameter that cannot be set makes the node warn
            let sub = node.subscription::<Log>("/rosout", qos::rosout())?;
            let set = node.client::<SetParametersRequest, SetParametersResponse>(
                "/logs/quiet/set_parameters",
                "rcl_interfaces/srv/SetParameters",
            )?;
            let chatter = node.subscription::<std_msgs::String>("/logs/chatter", qos::default())?;
            timeout(LONG, chatter.recv())
                .await
                .expect("the talker is not publishing")?;
            let r = call(
                &set,
                set_parameters_request([("topic", ParamValue::String("x".into()))]),
                Duration::from_secs(1),
                20,
            )
            .await;
            assert!(!r.results[0].successful);
            let log = timeout(LONG, async {
                loop {
                    let l = sub.recv().await.unwrap();
                    if l.name == "logs.quiet" {
                        return l;
                    }
                }
            })
            .await
            .expect("no /rosout record from logs.quiet");
            assert_eq!(log.level, 30, "{log:?}"); // WARN: INFO is filtered by --log-level
            assert!(log.msg.contains("read-only"), "{log:?}");
            proc.wait_line("[WARN]", LONG).await;
            Ok(())
        }
    })
    .expect("peer run");
    assert_eq!(proc.count("[INFO]"), 0, "{:#?}", proc.lines());
    assert!(proc.count("[WARN]") >= 1);
}

#[test]
fn discovery_range_localhost_is_seen_and_off_is_not() {
    fieldproof_testkit::contain_or_return!();
    let _local = Proc::start_env(
        "talker",
        97,
        &["--ros-args", "-r", "__node:=local"],
        &[("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")],
    );
    let off = Proc::start_env(
        "talker",
        97,
        &["--ros-args", "-r", "__node:=hermit"],
        &[("ROS_AUTOMATIC_DISCOVERY_RANGE", "OFF")],
    );
    fieldproof_runtime::run_on_domain("range_peer", 97, |node| {
        let off = &off;
        async move {
            timeout(LONG, node.wait_for_node("/local"))
                .await
                .expect("LOCALHOST node not discovered on loopback");
            // the OFF node runs (it publishes) but nobody discovers it
            off.wait_line("Publishing: 'hello 3'", LONG).await;
            assert!(
                !node.nodes().iter().any(|n| n.name == "hermit"),
                "{:?}",
                node.nodes()
            );
            Ok(())
        }
    })
    .expect("peer run");
}

#[test]
fn use_sim_time_can_be_switched_on_at_run_time() {
    fieldproof_testkit::contain_or_return!();
    let proc = Proc::start(
        "talker",
        98,
        &[
            "--ros-args",
            "-r",
            "__node:=switcher",
            "-p",
            "rate_hz:=20.0",
        ],
    );
    fieldproof_runtime::run_on_domain("switch_peer", 98, |node| {
        let proc = &proc;
        async move {
            // ticking in system time first
            proc.wait_line("Publishing: 'hello 2'", LONG).await;
            let set = node.client::<SetParametersRequest, SetParametersResponse>(
                "/switcher/set_parameters",
                "rcl_interfaces/srv/SetParameters",
            )?;
            let r = call(
                &set,
                set_parameters_request([("use_sim_time", ParamValue::Bool(true))]),
                Duration::from_secs(1),
                20,
            )
            .await;
            assert!(r.results[0].successful, "{:?}", r.results);
            proc.wait_line("use_sim_time: following /clock", LONG).await;
            // the node runs one executor thread: every system-time tick is logged before
            // the switch line, and none after it while /clock is silent
            let before = || {
                let lines = proc.lines();
                let at = lines
                    .iter()
                    .position(|l| l.contains("use_sim_time: following"))
                    .unwrap();
                let after = lines[at..]
                    .iter()
                    .filter(|l| l.contains("Publishing:"))
                    .count();
                (
                    lines[..at]
                        .iter()
                        .filter(|l| l.contains("Publishing:"))
                        .count(),
                    after,
                )
            };
            let (sys_ticks, _) = before();
            let clock = node.publisher::<Clock>("/clock", qos::clock())?;
            timeout(LONG, clock.wait_for_subscriptions(1))
                .await
                .expect("the node never subscribed /clock");
            // sim time starts at 0: far behind the system time, so the timer restarts
            for (i, ms) in (0..=200).step_by(10).enumerate() {
                clock.publish(Clock {
                    clock: Time::from_nanos(ms * 1_000_000),
                })?;
                async_io::Timer::after(Duration::from_millis(2)).await;
                if ms > 0 && ms % 50 == 0 {
                    let want = i / 5;
                    timeout(LONG, async {
                        while before().1 < want {
                            clock
                                .publish(Clock {
                                    clock: Time::from_nanos(ms * 1_000_000),
                                })
                                .unwrap();
                            async_io::Timer::after(Duration::from_millis(20)).await;
                        }
                    })
                    .await
                    .unwrap_or_else(|| panic!("no sim tick at {ms} ms"));
                    assert_eq!(before().1, want, "at {ms} ms");
                }
            }
            let next = format!("Publishing: 'hello {}'", sys_ticks + 4);
            assert_eq!(proc.count(&next), 1, "{:#?}", proc.lines());
            Ok(())
        }
    })
    .expect("peer run");
}

#[test]
fn qos_parameters_give_a_late_listener_the_latched_message() {
    fieldproof_testkit::contain_or_return!();
    fieldproof_runtime::run_on_domain("latch_peer", 89, |node| async move {
        let publisher = node.publisher::<std_msgs::String>("/chatter", qos::latched())?;
        publisher.publish(std_msgs::String {
            data: "latched".into(),
        })?;
        // the listener starts after the message was published
        let listener = Proc::start(
            "listener",
            89,
            &[
                "--ros-args",
                "-p",
                "qos_durability:=transient_local",
                "-p",
                "qos_depth:=1",
            ],
        );
        listener.wait_line("I heard: 'latched'", LONG).await;
        // a volatile listener does not get it
        let volatile = Proc::start("listener", 89, &["--ros-args", "-r", "__node:=volatile"]);
        volatile.wait_line("listening on /chatter", LONG).await;
        timeout(LONG, publisher.wait_for_subscriptions(2))
            .await
            .expect("listeners never matched");
        assert_eq!(volatile.count("I heard"), 0);
        Ok(())
    })
    .expect("peer run");
}
