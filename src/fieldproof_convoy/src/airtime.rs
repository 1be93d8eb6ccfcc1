//! LoRa time on air: how long one packet occupies the channel (Semtech SX127x datasheet
//! §4.1.1.7 and AN1200.13, "LoRa Modem Designer's Guide"; the same for SX126x at SF7..SF12).
//!
//! With `SF` the spreading factor, `BW` the bandwidth (Hz), `PL` the payload bytes,
//! `CR` = 1..4 for coding rate 4/5..4/8, `CRC` = 1 with the payload CRC on, `IH` = 1 with an
//! implicit header (0 explicit) and `DE` = 1 with low-data-rate optimisation on:
//!
//! ```text
//! T_sym       = 2^SF / BW
//! T_preamble  = (n_preamble + 4.25) · T_sym
//! n_payload   = 8 + max(ceil((8·PL − 4·SF + 28 + 16·CRC − 20·IH) / (4·(SF − 2·DE))) · (CR + 4), 0)
//! T_packet    = T_preamble + n_payload · T_sym
//! ```
//!
//! Low-data-rate optimisation is mandated when a symbol lasts longer than 16 ms
//! ([`LowDataRateOptimize::Auto`] turns it on exactly then, as the radio drivers do).
//!
//! The spec's link (SF9, 125 kHz, CR 4/5, 8-symbol preamble, explicit header, CRC on) carries the
//! 28-byte convoy packet in 55.25 symbols of 4.096 ms: 226.304 ms, so it cannot keep up with a
//! 5 Hz (200 ms) stream.

use serde::{Deserialize, Serialize};

/// Symbol time above which low-data-rate optimisation is mandated (seconds).
pub const LOW_DATA_RATE_SYMBOL_THRESHOLD_S: f64 = 0.016;

/// Whether the modem's low-data-rate optimisation (`DE`) is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LowDataRateOptimize {
    /// On exactly when the symbol time exceeds 16 ms.
    Auto,
    /// Always on.
    On,
    /// Always off.
    Off,
}

/// The LoRa modem settings the time on air depends on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LoraSettings {
    /// Spreading factor, 6..=12 (SF6 needs an implicit header).
    pub spreading_factor: u8,
    /// Bandwidth in Hz (e.g. 125000.0), above 0 and at most 500 kHz.
    pub bandwidth_hz: f64,
    /// Coding rate denominator: 5..=8 for 4/5..4/8.
    pub coding_rate_denominator: u8,
    /// Programmed preamble length in symbols (the modem adds 4.25).
    pub preamble_symbols: u16,
    /// Explicit header (length, coding rate and CRC presence sent in the header).
    pub explicit_header: bool,
    /// Payload CRC on.
    pub crc_on: bool,
    /// Low-data-rate optimisation.
    pub low_data_rate_optimize: LowDataRateOptimize,
}

/// Why a time on air cannot be computed: the offending setting and its value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AirtimeError {
    /// Spreading factor outside 6..=12.
    #[error("lora.spreading_factor: {0} is outside 6..=12")]
    SpreadingFactor(u8),
    /// SF6 with an explicit header (the modem supports SF6 in implicit header mode only).
    #[error("lora.explicit_header: spreading_factor 6 needs an implicit header")]
    Sf6NeedsImplicitHeader,
    /// Bandwidth not finite, not positive, or above 500 kHz.
    #[error("lora.bandwidth_hz: {0} is not in (0, 500000]")]
    Bandwidth(f64),
    /// Coding rate denominator outside 5..=8.
    #[error("lora.coding_rate_denominator: {0} is outside 5..=8 (4/5..4/8)")]
    CodingRate(u8),
    /// Payload longer than a LoRa frame can carry.
    #[error("lora payload: {0} bytes, at most 255")]
    PayloadLength(usize),
}

/// The time on air of one packet, broken down.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Airtime {
    /// One symbol, seconds.
    pub symbol_s: f64,
    /// The preamble (programmed symbols + 4.25), seconds.
    pub preamble_s: f64,
    /// Symbols after the preamble (header, payload, CRC).
    pub payload_symbols: u32,
    /// Those symbols' duration, seconds.
    pub payload_s: f64,
    /// Whether low-data-rate optimisation was on.
    pub low_data_rate_optimize: bool,
    /// The whole packet, seconds.
    pub total_s: f64,
}

impl Airtime {
    /// The highest packet rate the channel can sustain back to back (Hz).
    pub fn max_packet_rate_hz(&self) -> f64 {
        1.0 / self.total_s
    }
}

impl LoraSettings {
    /// The spec's link: SF9, 125 kHz, CR 4/5, 8-symbol preamble, explicit header, CRC on.
    pub fn convoy_default() -> LoraSettings {
        LoraSettings {
            spreading_factor: 9,
            bandwidth_hz: 125_000.0,
            coding_rate_denominator: 5,
            preamble_symbols: 8,
            explicit_header: true,
            crc_on: true,
            low_data_rate_optimize: LowDataRateOptimize::Auto,
        }
    }

    /// Checks every setting, naming the first bad one.
    pub fn validate(&self) -> Result<(), AirtimeError> {
        if !(6..=12).contains(&self.spreading_factor) {
            return Err(AirtimeError::SpreadingFactor(self.spreading_factor));
        }
        if self.spreading_factor == 6 && self.explicit_header {
            return Err(AirtimeError::Sf6NeedsImplicitHeader);
        }
        if !(self.bandwidth_hz.is_finite()
            && self.bandwidth_hz > 0.0
            && self.bandwidth_hz <= 500_000.0)
        {
            return Err(AirtimeError::Bandwidth(self.bandwidth_hz));
        }
        if !(5..=8).contains(&self.coding_rate_denominator) {
            return Err(AirtimeError::CodingRate(self.coding_rate_denominator));
        }
        Ok(())
    }

    /// The time on air of a packet carrying `payload_len` bytes.
    pub fn time_on_air(&self, payload_len: usize) -> Result<Airtime, AirtimeError> {
        self.validate()?;
        if payload_len > 255 {
            return Err(AirtimeError::PayloadLength(payload_len));
        }
        let sf = i64::from(self.spreading_factor);
        let symbol_s = f64::from(1u32 << self.spreading_factor) / self.bandwidth_hz;
        let low_data_rate_optimize = match self.low_data_rate_optimize {
            LowDataRateOptimize::Auto => symbol_s > LOW_DATA_RATE_SYMBOL_THRESHOLD_S,
            LowDataRateOptimize::On => true,
            LowDataRateOptimize::Off => false,
        };
        let de = i64::from(low_data_rate_optimize);
        let crc = i64::from(self.crc_on);
        let implicit = i64::from(!self.explicit_header);
        let coding_rate = i64::from(self.coding_rate_denominator) - 4;
        // payload_len <= 255 and sf in 6..=12: every term is small, and the divisor is at least
        // 4 * (6 - 2) = 16.
        let numerator = 8 * payload_len as i64 - 4 * sf + 28 + 16 * crc - 20 * implicit;
        let divisor = 4 * (sf - 2 * de);
        let blocks = ceil_div(numerator, divisor).max(0);
        let payload_symbols = 8 + blocks * (coding_rate + 4);
        let payload_symbols = u32::try_from(payload_symbols).unwrap_or(u32::MAX);
        let preamble_s = (f64::from(self.preamble_symbols) + 4.25) * symbol_s;
        let payload_s = f64::from(payload_symbols) * symbol_s;
        Ok(Airtime {
            symbol_s,
            preamble_s,
            payload_symbols,
            payload_s,
            low_data_rate_optimize,
            total_s: preamble_s + payload_s,
        })
    }
}

/// Integer division rounding towards +infinity (divisor > 0).
fn ceil_div(numerator: i64, divisor: i64) -> i64 {
    numerator.div_euclid(divisor) + i64::from(numerator.rem_euclid(divisor) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(sf: u8, ldro: LowDataRateOptimize) -> LoraSettings {
        LoraSettings {
            spreading_factor: sf,
            low_data_rate_optimize: ldro,
            ..LoraSettings::convoy_default()
        }
    }

    fn assert_close(actual_s: f64, expected_ms: f64) {
        assert!(
            (actual_s * 1e3 - expected_ms).abs() < 1e-9,
            "{} ms, expected {expected_ms} ms",
            actual_s * 1e3
        );
    }

    #[test]
    fn convoy_packet_on_the_spec_link_takes_226_304_ms() {
        // 8*28 - 36 + 28 + 16 = 232; ceil(232/36) = 7 blocks of 5 symbols; 8 + 35 = 43 symbols;
        // (8 + 4.25 + 43) * 4.096 ms = 226.304 ms.
        let airtime = LoraSettings::convoy_default().time_on_air(28).unwrap();
        assert_close(airtime.symbol_s, 4.096);
        assert_eq!(airtime.payload_symbols, 43);
        assert!(!airtime.low_data_rate_optimize);
        assert_close(airtime.total_s, 226.304);
        assert!(
            airtime.max_packet_rate_hz() < 5.0,
            "the 5 Hz stream must not fit"
        );
    }

    #[test]
    fn an1200_13_sheet_sf9_13_bytes_takes_164_864_ms() {
        // AN1200.13 calculator sheet: SF9, 125 kHz, 13 bytes, explicit header, LDRO off, CR 4/5,
        // preamble 8 -> T_sym 4.096, T_preamble 50.176, 28 payload symbols, 114.688, 164.864 ms.
        let airtime = settings(9, LowDataRateOptimize::Off)
            .time_on_air(13)
            .unwrap();
        assert_close(airtime.preamble_s, 50.176);
        assert_eq!(airtime.payload_symbols, 28);
        assert_close(airtime.payload_s, 114.688);
        assert_close(airtime.total_s, 164.864);
    }

    #[test]
    fn sf7_10_bytes_takes_41_216_ms() {
        // Published example (SF7, CR 4/5, 125 kHz, preamble 8, 10 bytes, header, LDRO off):
        // preamble 12.544 ms, header + payload 28.672 ms, packet 41.216 ms.
        let airtime = settings(7, LowDataRateOptimize::Auto)
            .time_on_air(10)
            .unwrap();
        assert_close(airtime.preamble_s, 12.544);
        assert_close(airtime.payload_s, 28.672);
        assert_close(airtime.total_s, 41.216);
    }

    #[test]
    fn sf7_20_bytes_takes_56_576_ms() {
        // 160 - 28 + 44 = 176; ceil(176/28) = 7; 8 + 35 = 43 symbols; 55.25 * 1.024 ms.
        let airtime = settings(7, LowDataRateOptimize::Auto)
            .time_on_air(20)
            .unwrap();
        assert_close(airtime.total_s, 56.576);
    }

    #[test]
    fn sf11_10_bytes_turns_ldro_on_and_takes_577_536_ms() {
        // Published example (SF11, 125 kHz, 10 bytes, LDRO on): preamble 200.704 ms,
        // header + payload 376.832 ms, packet 577.536 ms. T_sym = 16.384 ms > 16 ms: Auto is on.
        let airtime = settings(11, LowDataRateOptimize::Auto)
            .time_on_air(10)
            .unwrap();
        assert!(airtime.low_data_rate_optimize);
        assert_close(airtime.preamble_s, 200.704);
        assert_close(airtime.payload_s, 376.832);
        assert_close(airtime.total_s, 577.536);
    }

    #[test]
    fn sf12_10_bytes_takes_about_a_second() {
        // 80 - 48 + 44 = 76; ceil(76 / (4 * (12 - 2))) = 2; 8 + 10 = 18; 30.25 * 32.768 ms.
        let airtime = settings(12, LowDataRateOptimize::Auto)
            .time_on_air(10)
            .unwrap();
        assert!(airtime.low_data_rate_optimize);
        assert_close(airtime.total_s, 991.232);
    }

    #[test]
    fn ldro_forced_off_at_sf12_changes_the_divisor() {
        // 40 bytes: 8*40 - 48 + 28 + 16 = 316; DE on: ceil(316 / 40) = 8 blocks -> 8 + 40 symbols;
        // DE off: ceil(316 / 48) = 7 blocks -> 8 + 35 symbols.
        let on = settings(12, LowDataRateOptimize::On)
            .time_on_air(40)
            .unwrap();
        let off = settings(12, LowDataRateOptimize::Off)
            .time_on_air(40)
            .unwrap();
        assert_eq!((on.payload_symbols, off.payload_symbols), (8 + 40, 8 + 35));
    }

    #[test]
    fn implicit_header_and_crc_off_can_make_the_max_term_zero() {
        // SF12, implicit, no CRC, 0 bytes: 0 - 48 + 28 = -20 -> max(.., 0): 8 symbols only.
        let mut lora = settings(12, LowDataRateOptimize::Off);
        lora.explicit_header = false;
        lora.crc_on = false;
        assert_eq!(lora.time_on_air(0).unwrap().payload_symbols, 8);
    }

    #[test]
    fn bad_settings_are_refused_naming_the_field_and_value() {
        let cases: Vec<(LoraSettings, usize, &str)> = vec![
            (
                settings(13, LowDataRateOptimize::Auto),
                28,
                "lora.spreading_factor: 13 is outside 6..=12",
            ),
            (
                settings(6, LowDataRateOptimize::Auto),
                28,
                "lora.explicit_header: spreading_factor 6 needs an implicit header",
            ),
            (
                LoraSettings {
                    bandwidth_hz: f64::NAN,
                    ..LoraSettings::convoy_default()
                },
                28,
                "lora.bandwidth_hz: NaN is not in (0, 500000]",
            ),
            (
                LoraSettings {
                    bandwidth_hz: 0.0,
                    ..LoraSettings::convoy_default()
                },
                28,
                "lora.bandwidth_hz: 0 is not in (0, 500000]",
            ),
            (
                LoraSettings {
                    coding_rate_denominator: 4,
                    ..LoraSettings::convoy_default()
                },
                28,
                "lora.coding_rate_denominator: 4 is outside 5..=8 (4/5..4/8)",
            ),
            (
                LoraSettings::convoy_default(),
                256,
                "lora payload: 256 bytes, at most 255",
            ),
        ];
        for (lora, len, message) in cases {
            assert_eq!(lora.time_on_air(len).unwrap_err().to_string(), message);
        }
    }

    #[test]
    fn ceil_div_rounds_up_for_both_signs() {
        assert_eq!(
            [
                ceil_div(7, 2),
                ceil_div(6, 2),
                ceil_div(-7, 2),
                ceil_div(0, 5)
            ],
            [4, 3, -3, 0]
        );
    }
}
