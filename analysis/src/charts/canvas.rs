//! What every chart shares: the embedded font, the canvas, the styles and the PNG file.

use std::error::Error as StdError;
use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};

use super::axis;
use crate::{Error, Result};

/// Every chart is this many pixels wide and high.
pub const WIDTH: u32 = 900;
pub const HEIGHT: u32 = 560;

/// The family plotters asks for when a style names none ("sans-serif"): registering the embedded
/// font under it makes every label, default ones included, use that font.
const FONT_FAMILY: &str = "sans-serif";

/// The root of a chart: an RGB buffer in memory.
pub type Canvas<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// A drawing step. Plotters' error type names the bitmap backend's error, which plotters does not
/// re-export; boxing keeps `plotters-bitmap` out of the dependency list.
pub type Drawn = std::result::Result<(), Box<dyn StdError>>;

/// Ten distinguishable colours (Tableau 10), cycled for series beyond the tenth.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

pub fn series_color(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

pub const TAB_BLUE: RGBColor = PALETTE[0];
pub const TAB_ORANGE: RGBColor = PALETTE[1];
pub const TAB_GREEN: RGBColor = PALETTE[2];
pub const TAB_RED: RGBColor = PALETTE[3];
pub const GREY: RGBColor = RGBColor(110, 110, 110);
pub const LIGHT_GREY: RGBColor = RGBColor(200, 200, 200);
/// The minor grid: barely there, a guide for the eye and no more.
pub const FAINT_GRID: RGBColor = RGBColor(240, 240, 240);
/// At most this many minor grid lines between two labelled ones.
pub const MINOR_LINES: usize = 4;

/// The embedded font at `size` pixels.
pub fn font(size: f64) -> TextStyle<'static> {
    (FONT_FAMILY, size).into_font().into()
}

pub fn caption_font() -> TextStyle<'static> {
    font(22.0)
}

/// Tick labels, legend entries and row labels.
pub fn label_font() -> TextStyle<'static> {
    font(14.0)
}

pub fn axis_title_font() -> TextStyle<'static> {
    font(16.0)
}

/// Draws the mesh of a line plot over a count (games, epochs, iterations): whole-number ticks
/// along x, the y ticks of its range, the faint minor grid, and both axis titles.
pub fn draw_count_mesh<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    x_desc: &str,
    y_desc: &str,
) -> Drawn
where
    DB::ErrorType: 'static,
{
    let x_ticks = axis::count_ticks(&chart.x_range());
    let y_tick = axis::tick_label(&chart.y_range());
    chart
        .configure_mesh()
        .x_labels(x_ticks)
        .x_label_formatter(&|count| format!("{count:.0}"))
        .y_label_formatter(&y_tick)
        .light_line_style(FAINT_GRID)
        .max_light_lines(MINOR_LINES)
        .x_desc(x_desc)
        .y_desc(y_desc)
        .label_style(label_font())
        .axis_desc_style(axis_title_font())
        .draw()?;
    Ok(())
}

/// Registers DejaVu Sans, compiled into the binary, once per process. Plotters' `ab_glyph`
/// backend reads no system font, so charts draw the same on a machine without fonts or
/// fontconfig (a minimal CI image) as on a desktop.
fn embedded_font() -> std::result::Result<(), &'static str> {
    static REGISTERED: OnceLock<std::result::Result<(), &'static str>> = OnceLock::new();
    *REGISTERED.get_or_init(|| {
        register_font(FONT_FAMILY, FontStyle::Normal, dejavu::sans::regular())
            .map_err(|_| "the embedded DejaVu Sans font cannot be parsed")
    })
}

pub fn chart_error(path: &Path, reason: impl std::fmt::Display) -> Error {
    Error::Chart { path: path.display().to_string(), reason: reason.to_string() }
}

/// Draws a chart on a white `WIDTH` x `HEIGHT` canvas in memory and writes it to `path` as a PNG.
/// Nothing is written when drawing fails.
pub fn render(path: &Path, draw: impl FnOnce(&Canvas<'_>) -> Drawn) -> Result<()> {
    embedded_font().map_err(|reason| chart_error(path, reason))?;
    let mut rgb = vec![0u8; WIDTH as usize * HEIGHT as usize * 3];
    {
        let canvas = BitMapBackend::with_buffer(&mut rgb, (WIDTH, HEIGHT)).into_drawing_area();
        canvas.fill(&WHITE).map_err(|e| chart_error(path, e))?;
        draw(&canvas).map_err(|e| chart_error(path, format!("cannot draw: {e}")))?;
        canvas.present().map_err(|e| chart_error(path, e))?;
    }
    let png = encode_png(&rgb).map_err(|e| chart_error(path, format!("cannot encode PNG: {e}")))?;
    std::fs::write(path, png).map_err(|e| chart_error(path, format!("cannot write: {e}")))
}

/// Encodes in memory so that a failed write surfaces as an error instead of being lost in a
/// buffered writer's drop.
fn encode_png(rgb: &[u8]) -> std::result::Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, WIDTH, HEIGHT);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(bytes)
}

/// The chart for empty input: the title and "no data", so that a report's link still opens.
pub fn no_data(canvas: &Canvas<'_>, title: &str) -> Drawn {
    let centre = Pos::new(HPos::Center, VPos::Center);
    let (width, height) = canvas.dim_in_pixel();
    let x = (width / 2) as i32;
    canvas.draw(&Text::new(title, (x, 30), caption_font().pos(centre)))?;
    canvas.draw(&Text::new("no data", (x, (height / 2) as i32), font(20.0).color(&GREY).pos(centre)))?;
    Ok(())
}

/// Draws a legend in the chart's upper-right or upper-left corner.
pub fn legend<'a, X, Y>(
    chart: &mut ChartContext<'a, BitMapBackend<'a>, Cartesian2d<X, Y>>,
    position: SeriesLabelPosition,
) -> Drawn
where
    X: plotters::coord::ranged1d::Ranged,
    Y: plotters::coord::ranged1d::Ranged,
{
    chart
        .configure_series_labels()
        .position(position)
        .margin(10)
        .label_font(label_font())
        .background_style(WHITE.mix(0.85))
        .border_style(LIGHT_GREY)
        .draw()?;
    Ok(())
}
