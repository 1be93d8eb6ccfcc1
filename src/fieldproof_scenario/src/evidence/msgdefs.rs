//! The `.msg` definitions (ROS 2 Jazzy) of the types fieldproof_msgs knows, for the MCAP
//! `ros2msg` schemas: the type's own text, then each dependency after a line of `=` and
//! `MSG: pkg/Name`, as rosbag2 writes them.

/// The own definition of a type (its fields, nested types written `pkg/Name`), from
/// `fieldproof_msgs`' one table of definitions, newline-terminated as rosbag2 writes it.
pub fn own(ros_type: &str) -> Option<String> {
    let fields = fieldproof_msgs::type_hash::definition(ros_type)?;
    Some(if fields.is_empty() {
        String::new()
    } else {
        format!("{fields}\n")
    })
}

/// `pkg/Name` (as a nested type is written) to `pkg/msg/Name` (as types are registered).
fn registered_name(nested: &str) -> String {
    match nested.split_once('/') {
        Some((package, name)) if !name.contains('/') => format!("{package}/msg/{name}"),
        _ => nested.to_string(),
    }
}

fn deps_of(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|t| t.contains('/'))
        .map(|t| t.split('[').next().unwrap_or(t).to_string())
        .collect()
}

/// The full `ros2msg` schema text of a type (own text and every dependency once, depth
/// first), `None` for a type without a definition here.
pub fn schema(ros_type: &str) -> Option<String> {
    let own_text = own(ros_type)?;
    let mut out = own_text.clone();
    let mut seen = vec![ros_type.to_string()];
    let mut stack: Vec<String> = deps_of(&own_text)
        .iter()
        .rev()
        .map(|d| registered_name(d))
        .collect();
    while let Some(t) = stack.pop() {
        if seen.contains(&t) {
            continue;
        }
        let text = own(&t)?;
        out.push_str(&"=".repeat(80));
        out.push_str(&format!("\nMSG: {t}\n{text}"));
        seen.push(t);
        for d in deps_of(&text).iter().rev() {
            stack.push(registered_name(d));
        }
    }
    // As rosbag2 writes them (and the ROS 2 parsers read them): `pkg/Name`, no `msg/`.
    Some(out.replace("/msg/", "/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_type_has_a_complete_schema() {
        for t in fieldproof_msgs::KNOWN_TYPES {
            let s = schema(t).unwrap_or_else(|| panic!("no definition of {t}"));
            for d in deps_of(&s) {
                assert!(s.contains(&format!("MSG: {d}\n")), "{t}: {d} missing");
                assert!(!d.contains("/msg/"), "{t}: {d}");
            }
        }
    }

    #[test]
    fn odometry_lists_its_dependencies_once() {
        let s = schema("nav_msgs/msg/Odometry").unwrap();
        assert_eq!(s.matches("MSG: geometry_msgs/Vector3\n").count(), 1);
        assert!(s.starts_with("std_msgs/Header header\n"));
        assert!(s.contains("MSG: builtin_interfaces/Time\nint32 sec"));
    }
}
