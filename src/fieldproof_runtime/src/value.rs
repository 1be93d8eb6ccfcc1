//! Parameter values (the `rcl_interfaces/msg/ParameterValue` union) and their YAML form.

use std::fmt;

use ros2_client::parameters::raw;
use thiserror::Error;

/// A parameter's type, numbered as `rcl_interfaces/msg/ParameterType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `bool`
    Bool = 1,
    /// `integer` (i64)
    Integer = 2,
    /// `double` (f64)
    Double = 3,
    /// `string`
    String = 4,
    /// `byte_array`
    ByteArray = 5,
    /// `bool_array`
    BoolArray = 6,
    /// `integer_array`
    IntegerArray = 7,
    /// `double_array`
    DoubleArray = 8,
    /// `string_array`
    StringArray = 9,
}

impl ParamType {
    /// The name ROS 2 tools print (`rclcpp::to_string(ParameterType)`).
    pub fn name(self) -> &'static str {
        match self {
            ParamType::Bool => "bool",
            ParamType::Integer => "integer",
            ParamType::Double => "double",
            ParamType::String => "string",
            ParamType::ByteArray => "byte_array",
            ParamType::BoolArray => "bool_array",
            ParamType::IntegerArray => "integer_array",
            ParamType::DoubleArray => "double_array",
            ParamType::StringArray => "string_array",
        }
    }

    fn is_array(self) -> bool {
        (self as u8) >= 5
    }
}

impl fmt::Display for ParamType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A parameter value.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    /// `bool`
    Bool(bool),
    /// `integer`
    Integer(i64),
    /// `double`
    Double(f64),
    /// `string`
    String(String),
    /// `byte_array`
    ByteArray(Vec<u8>),
    /// `bool_array`
    BoolArray(Vec<bool>),
    /// `integer_array`
    IntegerArray(Vec<i64>),
    /// `double_array`
    DoubleArray(Vec<f64>),
    /// `string_array`
    StringArray(Vec<String>),
}

impl ParamValue {
    /// The value's type.
    pub fn ptype(&self) -> ParamType {
        match self {
            ParamValue::Bool(_) => ParamType::Bool,
            ParamValue::Integer(_) => ParamType::Integer,
            ParamValue::Double(_) => ParamType::Double,
            ParamValue::String(_) => ParamType::String,
            ParamValue::ByteArray(_) => ParamType::ByteArray,
            ParamValue::BoolArray(_) => ParamType::BoolArray,
            ParamValue::IntegerArray(_) => ParamType::IntegerArray,
            ParamValue::DoubleArray(_) => ParamType::DoubleArray,
            ParamValue::StringArray(_) => ParamType::StringArray,
        }
    }

    fn is_empty_array(&self) -> bool {
        match self {
            ParamValue::ByteArray(v) => v.is_empty(),
            ParamValue::BoolArray(v) => v.is_empty(),
            ParamValue::IntegerArray(v) => v.is_empty(),
            ParamValue::DoubleArray(v) => v.is_empty(),
            ParamValue::StringArray(v) => v.is_empty(),
            _ => false,
        }
    }

    /// Converts an empty array (whose element type YAML cannot tell) to the empty array
    /// of type `to`; every other value is returned unchanged.
    pub fn retype_empty_array(self, to: ParamType) -> ParamValue {
        if !self.is_empty_array() || !to.is_array() {
            return self;
        }
        match to {
            ParamType::ByteArray => ParamValue::ByteArray(vec![]),
            ParamType::BoolArray => ParamValue::BoolArray(vec![]),
            ParamType::IntegerArray => ParamValue::IntegerArray(vec![]),
            ParamType::DoubleArray => ParamValue::DoubleArray(vec![]),
            _ => ParamValue::StringArray(vec![]),
        }
    }

    /// Converts to the wire type.
    pub fn to_raw(&self) -> raw::ParameterValue {
        let mut r = raw::ParameterValue {
            ptype: self.ptype() as u8,
            boolean_value: false,
            int_value: 0,
            double_value: 0.0,
            string_value: String::new(),
            byte_array: vec![],
            bool_array: vec![],
            int_array: vec![],
            double_array: vec![],
            string_array: vec![],
        };
        match self {
            ParamValue::Bool(v) => r.boolean_value = *v,
            ParamValue::Integer(v) => r.int_value = *v,
            ParamValue::Double(v) => r.double_value = *v,
            ParamValue::String(v) => r.string_value = v.clone(),
            ParamValue::ByteArray(v) => r.byte_array = v.clone(),
            ParamValue::BoolArray(v) => r.bool_array = v.clone(),
            ParamValue::IntegerArray(v) => r.int_array = v.clone(),
            ParamValue::DoubleArray(v) => r.double_array = v.clone(),
            ParamValue::StringArray(v) => r.string_array = v.clone(),
        }
        r
    }

    /// Converts from the wire type; `None` for `NOT_SET` (or an unknown type number).
    pub fn from_raw(r: &raw::ParameterValue) -> Option<ParamValue> {
        Some(match r.ptype {
            1 => ParamValue::Bool(r.boolean_value),
            2 => ParamValue::Integer(r.int_value),
            3 => ParamValue::Double(r.double_value),
            4 => ParamValue::String(r.string_value.clone()),
            5 => ParamValue::ByteArray(r.byte_array.clone()),
            6 => ParamValue::BoolArray(r.bool_array.clone()),
            7 => ParamValue::IntegerArray(r.int_array.clone()),
            8 => ParamValue::DoubleArray(r.double_array.clone()),
            9 => ParamValue::StringArray(r.string_array.clone()),
            _ => return None,
        })
    }

    /// The raw `NOT_SET` value.
    pub fn raw_not_set() -> raw::ParameterValue {
        let mut r = ParamValue::Bool(false).to_raw();
        r.ptype = 0;
        r
    }

    /// Parses a value as `-p name:=value` does: as YAML (`true`, `3`, `1.5`, `[1, 2]`,
    /// `'quoted'`, anything else is a string).
    pub fn from_yaml_str(text: &str) -> Result<ParamValue, ValueError> {
        if text.trim().is_empty() {
            return Ok(ParamValue::String(text.to_string()));
        }
        // rcl's YAML parser takes these plain scalars as booleans (YAML 1.1 words)
        match text.trim() {
            "Y" | "y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => {
                return Ok(ParamValue::Bool(true))
            }
            "N" | "n" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
                return Ok(ParamValue::Bool(false))
            }
            _ => {}
        }
        let y: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| ValueError {
            value: text.to_string(),
            reason: format!("not valid YAML: {e}"),
        })?;
        ParamValue::from_yaml(&y).map_err(|reason| ValueError {
            value: text.to_string(),
            reason,
        })
    }

    /// Converts a parsed YAML node (scalar or sequence of one scalar type).
    pub fn from_yaml(y: &serde_yaml::Value) -> Result<ParamValue, String> {
        use serde_yaml::Value as Y;
        Ok(match y {
            Y::Bool(b) => ParamValue::Bool(*b),
            Y::Number(n) => {
                if let Some(i) = n.as_i64() {
                    ParamValue::Integer(i)
                } else if let Some(f) = n.as_f64() {
                    if n.is_u64() {
                        return Err("integer out of the i64 range".into());
                    }
                    ParamValue::Double(f)
                } else {
                    return Err("unsupported number".into());
                }
            }
            Y::String(s) => ParamValue::String(s.clone()),
            Y::Sequence(items) => {
                let scalars = items
                    .iter()
                    .map(ParamValue::from_yaml)
                    .collect::<Result<Vec<_>, _>>()?;
                let Some(first) = scalars.first() else {
                    // Element type unknown: retyped to the declared array type later.
                    return Ok(ParamValue::StringArray(vec![]));
                };
                let t = first.ptype();
                if scalars.iter().any(|v| v.ptype() != t) {
                    return Err("array elements must all have the same type".into());
                }
                match t {
                    ParamType::Bool => ParamValue::BoolArray(
                        scalars
                            .into_iter()
                            .map(|v| matches!(v, ParamValue::Bool(true)))
                            .collect(),
                    ),
                    ParamType::Integer => ParamValue::IntegerArray(
                        scalars
                            .into_iter()
                            .map(|v| if let ParamValue::Integer(i) = v { i } else { 0 })
                            .collect(),
                    ),
                    ParamType::Double => ParamValue::DoubleArray(
                        scalars
                            .into_iter()
                            .map(|v| {
                                if let ParamValue::Double(d) = v {
                                    d
                                } else {
                                    0.0
                                }
                            })
                            .collect(),
                    ),
                    ParamType::String => ParamValue::StringArray(
                        scalars
                            .into_iter()
                            .map(|v| match v {
                                ParamValue::String(s) => s,
                                _ => String::new(),
                            })
                            .collect(),
                    ),
                    _ => return Err("nested arrays are not parameter values".into()),
                }
            }
            Y::Null => return Err("null is not a parameter value".into()),
            Y::Mapping(_) => return Err("a mapping is not a parameter value".into()),
            Y::Tagged(t) => return ParamValue::from_yaml(&t.value),
        })
    }
}

impl fmt::Display for ParamValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list<T: fmt::Display>(f: &mut fmt::Formatter<'_>, v: &[T]) -> fmt::Result {
            f.write_str("[")?;
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{x}")?;
            }
            f.write_str("]")
        }
        match self {
            ParamValue::Bool(v) => write!(f, "{v}"),
            ParamValue::Integer(v) => write!(f, "{v}"),
            ParamValue::Double(v) => write!(f, "{v:?}"),
            ParamValue::String(v) => write!(f, "'{v}'"),
            ParamValue::ByteArray(v) => list(f, v),
            ParamValue::BoolArray(v) => list(f, v),
            ParamValue::IntegerArray(v) => list(f, v),
            ParamValue::DoubleArray(v) => list(f, v),
            ParamValue::StringArray(v) => list(f, v),
        }
    }
}

/// A value text that is not a parameter value.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("invalid parameter value '{value}': {reason}")]
pub struct ValueError {
    /// The offending text.
    pub value: String,
    /// Why it was refused.
    pub reason: String,
}

/// A `~/set_parameters` request setting each `(name, value)`, as `ros2 param set` sends it.
pub fn set_parameters_request<'a>(
    params: impl IntoIterator<Item = (&'a str, ParamValue)>,
) -> ros2_client::rcl_interfaces::SetParametersRequest {
    ros2_client::rcl_interfaces::SetParametersRequest {
        parameter: params
            .into_iter()
            .map(|(name, value)| raw::Parameter {
                name: name.to_string(),
                value: value.to_raw(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_scalars() {
        assert_eq!(
            ParamValue::from_yaml_str("true").unwrap(),
            ParamValue::Bool(true)
        );
        assert_eq!(
            ParamValue::from_yaml_str("false").unwrap(),
            ParamValue::Bool(false)
        );
        assert_eq!(
            ParamValue::from_yaml_str("3").unwrap(),
            ParamValue::Integer(3)
        );
        assert_eq!(
            ParamValue::from_yaml_str("-7").unwrap(),
            ParamValue::Integer(-7)
        );
        assert_eq!(
            ParamValue::from_yaml_str("1.5").unwrap(),
            ParamValue::Double(1.5)
        );
        assert_eq!(
            ParamValue::from_yaml_str("1e3").unwrap(),
            ParamValue::Double(1000.0)
        );
        // launch_ros writes Python booleans as True/False
        assert_eq!(
            ParamValue::from_yaml_str("True").unwrap(),
            ParamValue::Bool(true)
        );
        assert_eq!(
            ParamValue::from_yaml_str("FALSE").unwrap(),
            ParamValue::Bool(false)
        );
        assert_eq!(
            ParamValue::from_yaml_str("yes").unwrap(),
            ParamValue::Bool(true)
        );
        assert_eq!(
            ParamValue::from_yaml_str("Off").unwrap(),
            ParamValue::Bool(false)
        );
        assert_eq!(
            ParamValue::from_yaml_str("'yes'").unwrap(),
            ParamValue::String("yes".into())
        );
        assert_eq!(
            ParamValue::from_yaml_str("hello").unwrap(),
            ParamValue::String("hello".into())
        );
        assert_eq!(
            ParamValue::from_yaml_str("'3'").unwrap(),
            ParamValue::String("3".into())
        );
        assert_eq!(
            ParamValue::from_yaml_str("/a/topic").unwrap(),
            ParamValue::String("/a/topic".into())
        );
    }

    #[test]
    fn yaml_arrays() {
        assert_eq!(
            ParamValue::from_yaml_str("[1, 2, 3]").unwrap(),
            ParamValue::IntegerArray(vec![1, 2, 3])
        );
        assert_eq!(
            ParamValue::from_yaml_str("[1.0, 2.5]").unwrap(),
            ParamValue::DoubleArray(vec![1.0, 2.5])
        );
        assert_eq!(
            ParamValue::from_yaml_str("[true, false]").unwrap(),
            ParamValue::BoolArray(vec![true, false])
        );
        assert_eq!(
            ParamValue::from_yaml_str("[a, 'b c']").unwrap(),
            ParamValue::StringArray(vec!["a".into(), "b c".into()])
        );
        assert!(ParamValue::from_yaml_str("[1, 2.0]").is_err());
        assert!(ParamValue::from_yaml_str("[[1]]").is_err());
        assert!(ParamValue::from_yaml_str("{a: 1}").is_err());
        assert_eq!(
            ParamValue::from_yaml_str("[]")
                .unwrap()
                .retype_empty_array(ParamType::DoubleArray),
            ParamValue::DoubleArray(vec![])
        );
    }

    #[test]
    fn raw_round_trip() {
        for v in [
            ParamValue::Bool(true),
            ParamValue::Integer(-3),
            ParamValue::Double(2.5),
            ParamValue::String("x".into()),
            ParamValue::StringArray(vec!["a".into()]),
            ParamValue::IntegerArray(vec![1, 2]),
        ] {
            assert_eq!(ParamValue::from_raw(&v.to_raw()), Some(v));
        }
        assert_eq!(ParamValue::from_raw(&ParamValue::raw_not_set()), None);
    }
}
