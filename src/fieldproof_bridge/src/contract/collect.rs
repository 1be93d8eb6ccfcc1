//! Collecting observations from a live DDS graph.
