//! Radio links: the link shaper (kernel netem or userspace emulator), the ground station, link analysis and the link_monitor failsafe.
