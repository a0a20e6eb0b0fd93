//! Elo of several engines or tests side by side, each with its 95% interval.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axis;
use super::canvas::{
    Canvas, Drawn, FAINT_GRID, GREY, MINOR_LINES, TAB_GREEN, TAB_RED, WIDTH, axis_title_font, caption_font, font,
    label_font, no_data, render,
};
use crate::Result;

/// One row of [`elo_bars`]: an Elo estimate and its 95% interval.
#[derive(Clone, Debug, PartialEq)]
pub struct EloBar {
    pub label: String,
    pub elo: f64,
    pub lower: f64,
    pub upper: f64,
}

/// Rows are 1 apart on the y axis: bars this thick leave a gap between neighbours.
const BAR_HALF_HEIGHT: f64 = 0.3;

/// Labels longer than this are cut (with an ellipsis) so the plot keeps most of the width.
const MAX_LABEL_CHARS: usize = 36;

/// Writes a PNG with one horizontal row per entry, top to bottom in the order given: a bar from
/// zero to the Elo, a dot at the Elo, whiskers to the interval's bounds, a vertical zero line,
/// the label on the left and the numbers on the right. Green means the interval lies above zero,
/// red below, grey that it contains zero.
///
/// An entry whose Elo is not finite keeps its row and label, marked "no estimate"; a bound that is
/// not finite loses its whisker. Without any finite Elo (or without entries) the chart shows
/// the title and "no data".
pub fn elo_bars(path: &Path, title: &str, bars: &[EloBar]) -> Result<()> {
    render(path, |canvas| {
        if bars.iter().any(|bar| bar.elo.is_finite()) { draw(canvas, title, bars) } else { no_data(canvas, title) }
    })
}

fn draw(canvas: &Canvas<'_>, title: &str, bars: &[EloBar]) -> Drawn {
    let rows = bars.len();
    let labels: Vec<String> = bars.iter().map(|bar| shorten(&bar.label)).collect();
    let numbers: Vec<String> = bars.iter().map(numbers).collect();
    // Rows get tight beyond a score of entries: shrink the text with them.
    let font_size = (440.0 / rows as f64).clamp(9.0, 14.0);
    let row_font = font(font_size);
    let widest = |texts: &[String]| -> std::result::Result<u32, Box<dyn std::error::Error>> {
        let mut widest = 0;
        for text in texts {
            widest = widest.max(canvas.estimate_text_size(text, &row_font)?.0);
        }
        Ok(widest)
    };
    let left_width = widest(&labels)?.min(WIDTH * 2 / 5) + 14;
    let right_width = widest(&numbers)?.min(WIDTH / 4) + 14;

    let finite = bars.iter().filter(|bar| bar.elo.is_finite());
    let x_range = axis::padded(finite.flat_map(|bar| [bar.elo, bar.lower, bar.upper]).chain([0.0]));
    let x_low = x_range.start;
    let x_tick = axis::tick_label(&x_range);
    let mut chart = ChartBuilder::on(canvas)
        .caption(title, caption_font())
        .margin(16)
        .x_label_area_size(50)
        .y_label_area_size(left_width)
        .right_y_label_area_size(right_width)
        .build_cartesian_2d(x_range, -0.5..rows as f64 - 0.5)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_label_formatter(&x_tick)
        .light_line_style(FAINT_GRID)
        .max_light_lines(MINOR_LINES)
        .x_desc("Elo (whiskers: 95% interval)")
        .label_style(label_font())
        .axis_desc_style(axis_title_font())
        .draw()?;

    let top = rows as f64 - 0.5;
    chart.draw_series(LineSeries::new([(0.0, -0.5), (0.0, top)], GREY.stroke_width(1)))?;

    let plot_x = chart.plotting_area().get_pixel_range().0;
    let left = Pos::new(HPos::Left, VPos::Center);
    let right = Pos::new(HPos::Right, VPos::Center);
    for (index, bar) in bars.iter().enumerate() {
        // The first entry on top.
        let y = (rows - 1 - index) as f64;
        let pixel_y = chart.backend_coord(&(x_low, y)).1;
        let label_style = row_font.clone().pos(right);
        canvas.draw(&Text::new(labels[index].as_str(), (plot_x.start - 8, pixel_y), label_style))?;
        let number_style = row_font.clone().color(&GREY).pos(left);
        canvas.draw(&Text::new(numbers[index].as_str(), (plot_x.end + 8, pixel_y), number_style))?;
        if !bar.elo.is_finite() {
            continue;
        }
        let color = significance_color(bar);
        let half = BAR_HALF_HEIGHT;
        chart.draw_series([Rectangle::new([(0.0, y - half), (bar.elo, y + half)], color.mix(0.3).filled())])?;
        let whisker = color.stroke_width(2);
        for bound in [bar.lower, bar.upper].into_iter().filter(|bound| bound.is_finite()) {
            chart.draw_series([
                PathElement::new([(bar.elo, y), (bound, y)], whisker),
                PathElement::new([(bound, y - half * 0.6), (bound, y + half * 0.6)], whisker),
            ])?;
        }
        chart.draw_series([Circle::new((bar.elo, y), 4, color.filled())])?;
    }
    Ok(())
}

/// "+12.3 [+4.1, +20.5]", or "no estimate" when the Elo is not finite.
fn numbers(bar: &EloBar) -> String {
    if bar.elo.is_finite() {
        format!("{:+.1} [{:+.1}, {:+.1}]", bar.elo, bar.lower, bar.upper)
    } else {
        "no estimate".to_string()
    }
}

fn significance_color(bar: &EloBar) -> RGBColor {
    if bar.lower > 0.0 {
        TAB_GREEN
    } else if bar.upper < 0.0 {
        TAB_RED
    } else {
        GREY
    }
}

fn shorten(label: &str) -> String {
    if label.chars().count() <= MAX_LABEL_CHARS {
        label.to_string()
    } else {
        let kept: String = label.chars().take(MAX_LABEL_CHARS - 1).collect();
        format!("{kept}…")
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{assert_chart_png, assert_missing_directory_is_reported};
    use super::*;

    fn bar(label: &str, elo: f64, lower: f64, upper: f64) -> EloBar {
        EloBar { label: label.to_string(), elo, lower, upper }
    }

    #[test]
    fn draws_bars_with_intervals() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("elo.png");
        let bars = [
            bar("xq-dev vs xq-master", 24.5, 11.2, 37.9),
            bar("xq-dev vs pikafish-lite", -41.0, -60.3, -21.8),
            bar("null move off", 3.2, -8.0, 14.4),
        ];
        elo_bars(&path, "Elo against the baseline", &bars).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn single_entry_and_equal_bounds_still_draw() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("single.png");
        elo_bars(&path, "One", &[bar("only", 0.0, 0.0, 0.0)]).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn non_finite_values_are_skipped_not_fatal() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("nan.png");
        let bars = [
            bar("all wins", f64::INFINITY, 300.0, f64::INFINITY),
            bar("undefined", f64::NAN, f64::NAN, f64::NAN),
            bar("open upper bound", 150.0, 80.0, f64::INFINITY),
        ];
        elo_bars(&path, "Extremes", &bars).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn empty_and_non_latin_labels_draw() {
        // DejaVu Sans has no CJK glyphs: those draw as boxes, without failing.
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("labels.png");
        elo_bars(&path, "象棋 Elo", &[bar("", 1.0, 0.0, 2.0), bar("車 vs 馬", -1.0, -2.0, 0.0)])
            .expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn empty_input_writes_a_no_data_chart() {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("empty.png");
        elo_bars(&path, "Nothing yet", &[]).expect("chart written");
        assert_chart_png(&path);
    }

    #[test]
    fn missing_directory_is_an_error_naming_the_path() {
        assert_missing_directory_is_reported(|path| elo_bars(path, "x", &[bar("a", 1.0, 0.0, 2.0)]));
    }

    #[test]
    fn long_labels_are_cut() {
        let long = "a".repeat(100);
        let short = shorten(&long);
        assert_eq!(short.chars().count(), MAX_LABEL_CHARS);
        assert!(short.ends_with('…'));
        assert_eq!(shorten("short"), "short");
    }

    #[test]
    fn numbers_show_the_interval() {
        assert_eq!(numbers(&bar("a", 12.34, 4.06, 20.5)), "+12.3 [+4.1, +20.5]");
        assert_eq!(numbers(&bar("a", f64::NAN, 0.0, 1.0)), "no estimate");
    }
}
