//! The fleet from a moving carrier (issue 19), the pure logic (no DDS): the fleet station's
//! clearance book ([`lease`]), the carrier's road and deck airspace ([`carrier`]), and a
//! vehicle's sortie ([`sortie`]). The
//! `fleet_station` node is a thin shell over them on `fieldproof_runtime`.

#![warn(missing_docs)]

pub mod carrier;
pub mod lease;
pub mod sortie;
