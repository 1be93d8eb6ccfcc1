//! `fieldproof_interfaces`: the fleet's own messages (issue 19), hand-written from the `.msg`
//! files of the interface package `src/fieldproof_interfaces/msg/` (the single source of truth:
//! [`crate::type_hash`] reads those files, and `tests/rosbags.rs` checks these types byte-exact
//! against rosbags' typestore registered from them).

use serde::{Deserialize, Serialize};

use crate::builtin_interfaces::Time;
use crate::geometry_msgs::Point;
use crate::std_msgs::Header;

/// `fieldproof_interfaces/msg/FleetStatus`: a fleet vehicle's report to the fleet station.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FleetStatus {
    /// Stamp: simulation time of the report; frame: the world frame of `position`.
    pub header: Header,
    /// The vehicle's name (its namespace without the leading slash).
    pub vehicle: String,
    /// One of the `PHASE_*` constants.
    pub phase: u8,
    /// Metres, world frame (ENU).
    pub position: Point,
    /// Altitude of its assigned cruise layer, metres.
    pub layer_altitude_m: f64,
    /// Horizontal distance from its pad's centre, metres (NaN when unknown).
    pub pad_error_m: f64,
}

impl FleetStatus {
    /// On its pad, not asking for anything.
    pub const PHASE_ON_PAD: u8 = 0;
    /// On its pad, asking for a launch clearance.
    pub const PHASE_WAITING_LAUNCH: u8 = 1;
    /// Climbing from the pad to its layer, under a launch lease.
    pub const PHASE_CLIMBING: u8 = 2;
    /// Flying its inspection in its layer.
    pub const PHASE_MISSION: u8 = 3;
    /// Flying back to the carrier in its layer.
    pub const PHASE_RETURNING: u8 = 4;
    /// Holding in its layer above the carrier, asking for a land clearance.
    pub const PHASE_WAITING_LAND: u8 = 5;
    /// Descending onto its moving pad, under a land lease.
    pub const PHASE_LANDING: u8 = 6;
    /// Down on its pad.
    pub const PHASE_LANDED: u8 = 7;
    /// Its own supervisor ended the sortie (LAND or an abort).
    pub const PHASE_ABORTED: u8 = 8;
}

crate::ros_message!(
    FleetStatus,
    "fieldproof_interfaces/msg/FleetStatus",
    stamped
);

/// `fieldproof_interfaces/msg/ClearanceRequest`: a vehicle asks for a launch or land clearance.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ClearanceRequest {
    /// Stamp: simulation time of the request.
    pub header: Header,
    /// The asking vehicle's name.
    pub vehicle: String,
    /// [`Self::KIND_LAUNCH`] or [`Self::KIND_LAND`].
    pub kind: u8,
    /// Increasing per vehicle; an answer names the request it answers.
    pub request_id: u32,
    /// The pad it launches from or lands on.
    pub pad: String,
}

impl ClearanceRequest {
    /// Leave the pad and climb clear of the carrier.
    pub const KIND_LAUNCH: u8 = 0;
    /// Descend onto the pad.
    pub const KIND_LAND: u8 = 1;
}

crate::ros_message!(
    ClearanceRequest,
    "fieldproof_interfaces/msg/ClearanceRequest",
    stamped
);

/// `fieldproof_interfaces/msg/Clearance`: the station's grant (with its lease) or refusal.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Clearance {
    /// Stamp: simulation time of the answer.
    pub header: Header,
    /// The vehicle it answers.
    pub vehicle: String,
    /// [`ClearanceRequest::KIND_LAUNCH`] or [`ClearanceRequest::KIND_LAND`].
    pub kind: u8,
    /// The request it answers.
    pub request_id: u32,
    /// Granted (or renewed) or refused.
    pub granted: bool,
    /// The lease (from 1); 0 when refused.
    pub lease_id: u32,
    /// Simulation time the lease ends unless renewed (zero when refused).
    pub expires: Time,
    /// "granted", "renewed", or why it was refused.
    pub reason: String,
}

crate::ros_message!(Clearance, "fieldproof_interfaces/msg/Clearance", stamped);
