//! Axis ranges that always have room: a margin on both sides, a width even for one value or
//! equal values, and no NaN or infinity reaching plotters.

use std::ops::Range;

/// The share of the data's span left free on each side.
const MARGIN: f64 = 0.06;

/// A range over the finite `values` (non-finite ones are ignored) with a margin on both sides.
/// Equal values get a span of a fifth of their magnitude (or 2 around zero); no finite value at
/// all gives `-1..1`.
pub fn padded(values: impl IntoIterator<Item = f64>) -> Range<f64> {
    let Some((low, high)) = finite_bounds(values) else {
        return -1.0..1.0;
    };
    let span = high - low;
    let (low, high) = if span > 0.0 {
        (low - span * MARGIN, high + span * MARGIN)
    } else {
        let half = if low == 0.0 { 1.0 } else { low.abs() * 0.1 };
        (low - half, high + half)
    };
    // Values near f64::MAX overflow when padded: fall back to the bare bounds.
    if low.is_finite() && high.is_finite() && low < high { low..high } else { fallback(low, high) }
}

/// A range for a count axis (games, epochs, iterations) over the finite `values`, at least 1
/// wide. With a `start` the axis begins exactly there (or at a smaller value) with a margin on
/// the right only; without one it has margins on both sides. No value at all gives `0..1`.
pub fn counts(values: impl IntoIterator<Item = f64>, start: Option<f64>) -> Range<f64> {
    let Some((mut low, mut high)) = finite_bounds(values.into_iter().chain(start)) else {
        return 0.0..1.0;
    };
    if high - low < 1.0 {
        // Keep an exact start; otherwise centre the lone value.
        if start.is_some() {
            high = low + 1.0;
        } else {
            low -= 0.5;
            high += 0.5;
        }
    }
    let margin = (high - low) * MARGIN;
    let low = if start.is_some() { low } else { low - margin };
    let high = high + margin;
    if low.is_finite() && high.is_finite() && low < high { low..high } else { fallback(low, high) }
}

/// How many tick labels a count axis gets: at most 10, and never more than there are whole
/// numbers in the range, so that plotters picks whole-number steps.
pub fn count_ticks(range: &Range<f64>) -> usize {
    let whole_numbers = (range.end.floor() - range.start.ceil() + 1.0).max(1.0);
    if whole_numbers >= 10.0 { 10 } else { whole_numbers as usize }
}

/// Tick labels for a value axis over `range`: enough decimals for the ticks plotters picks there
/// (at most ten, on steps of 1, 2 or 5 times a power of ten), trailing zeros trimmed, so "10"
/// rather than "10.0" and "0.0725" rather than "0.07".
pub fn tick_label(range: &Range<f64>) -> impl Fn(&f64) -> String + use<> {
    let magnitude = (range.end - range.start).abs().log10().floor();
    let decimals = if magnitude.is_finite() { (2.0 - magnitude).clamp(0.0, 12.0) as usize } else { 2 };
    move |value: &f64| {
        let text = format!("{value:.decimals$}");
        let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
        if text == "-0" { "0".to_string() } else { text.to_string() }
    }
}

fn finite_bounds(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values.into_iter().filter(|v| v.is_finite()).fold(None, |bounds, v| match bounds {
        None => Some((v, v)),
        Some((low, high)) => Some((low.min(v), high.max(v))),
    })
}

fn fallback(low: f64, high: f64) -> Range<f64> {
    let low = if low.is_finite() { low } else { f64::MIN / 2.0 };
    let high = if high.is_finite() { high } else { f64::MAX / 2.0 };
    if low < high { low..high } else { -1.0..1.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_adds_a_margin_on_both_sides() {
        let range = padded([0.0, 100.0]);
        assert!(range.start < 0.0 && range.start > -10.0, "{range:?}");
        assert!(range.end > 100.0 && range.end < 110.0, "{range:?}");
    }

    #[test]
    fn padded_widens_a_single_value_or_equal_values() {
        assert_eq!(padded([0.0]), -1.0..1.0);
        let small = padded([0.05, 0.05]);
        assert!((small.start - 0.045).abs() < 1e-12 && (small.end - 0.055).abs() < 1e-12);
        let range = padded([-200.0, -200.0]);
        assert!(range.start < -200.0 && range.end > -200.0, "{range:?}");
    }

    #[test]
    fn padded_ignores_non_finite_values() {
        let range = padded([f64::NAN, 1.0, f64::INFINITY, 3.0, f64::NEG_INFINITY]);
        assert!(range.start < 1.0 && range.end > 3.0 && range.end < 4.0, "{range:?}");
        assert_eq!(padded([f64::NAN]), -1.0..1.0);
        assert_eq!(padded([]), -1.0..1.0);
    }

    #[test]
    fn padded_survives_values_near_the_largest_float() {
        let range = padded([-f64::MAX, f64::MAX]);
        assert!(range.start.is_finite() && range.end.is_finite() && range.start < range.end);
    }

    #[test]
    fn counts_start_where_asked_and_are_at_least_one_wide() {
        let range = counts([100.0, 5000.0], Some(0.0));
        assert_eq!(range.start, 0.0);
        assert!(range.end > 5000.0, "{range:?}");
        let single = counts([3.0], None);
        assert!(single.start < 3.0 && single.end > 3.0 && single.end - single.start >= 1.0);
        let empty = counts([], Some(0.0));
        assert!(empty.start == 0.0 && empty.end >= 1.0, "{empty:?}");
        let started = counts([0.0], Some(0.0));
        assert!(started.start == 0.0 && started.end >= 1.0, "{started:?}");
    }

    #[test]
    fn tick_labels_have_the_decimals_the_range_needs() {
        let elo = tick_label(&(-66.0..42.0));
        assert_eq!((elo(&-60.0), elo(&0.0), elo(&20.0)), ("-60".to_string(), "0".to_string(), "20".to_string()));
        let llr = tick_label(&(-3.3..3.3));
        assert_eq!((llr(&-2.5), llr(&3.0), llr(&-0.0)), ("-2.5".to_string(), "3".to_string(), "0".to_string()));
        let loss = tick_label(&(0.0705..0.0825));
        assert_eq!((loss(&0.0725), loss(&0.08)), ("0.0725".to_string(), "0.08".to_string()));
        assert_eq!(tick_label(&(1.0..1.0))(&1.0), "1");
    }

    #[test]
    fn count_ticks_never_ask_for_fractional_steps() {
        assert_eq!(count_ticks(&(2.4..3.6)), 1);
        assert_eq!(count_ticks(&(0.0..4.2)), 5);
        assert_eq!(count_ticks(&(0.0..5000.0)), 10);
    }
}
