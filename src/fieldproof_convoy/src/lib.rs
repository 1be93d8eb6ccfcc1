//! Convoy following on a degraded link, the pure logic (no DDS): the 28-byte packet the lead
//! broadcasts, the LoRa time-on-air of a packet, the follower's watchdog and controller, the
//! per-cycle CSV log and its recovery analysis; the framing of a serial stream, the radio
//! channel's queue and path loss, and the source-side degradation the nodes build on.

#![warn(missing_docs)]

pub mod airtime;
pub mod analysis;
pub mod csv_log;
pub mod follow;
pub mod packet;
pub mod radio;
pub mod serial;
pub mod source;
pub mod watchdog;
