//! PNG charts of reports and tuning runs: plain data in, a 900x560 PNG file out.
//!
//! ```
//! use analysis::charts::{EloBar, elo_bars};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("elo.png");
//! let bars = [EloBar { label: "dev vs master".into(), elo: 12.5, lower: 3.0, upper: 22.0 }];
//! elo_bars(&path, "Elo against master", &bars)?;
//! assert!(std::fs::metadata(&path)?.len() > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Shared conventions:
//! - Text is drawn with DejaVu Sans compiled into the binary (plotters' `ab_glyph` backend), never
//!   a system font: a machine without fonts or fontconfig draws the same chart. Characters the
//!   font lacks (Chinese among them) draw as boxes.
//! - Empty input, or input without a single finite value, is not an error: the chart shows its
//!   title and "no data", so that a report linking to it still shows something sensible.
//! - NaN and infinite values are skipped (each function says what it skips), never drawn and
//!   never a panic. Axes have a margin on both sides and a width even for a single value.
//! - A chart that cannot be drawn or written is an [`Error::Chart`](crate::Error::Chart) naming
//!   the path; nothing is written then. The parent directory must exist.

mod axis;
mod canvas;
mod elo;
mod llr;
mod loss;
mod progress;

pub use canvas::{HEIGHT, WIDTH};
pub use elo::{EloBar, elo_bars};
pub use llr::{LlrSeries, llr_curve};
pub use loss::{LossPoint, loss_curve};
pub use progress::{ProgressPoint, elo_progress};

#[cfg(test)]
mod test_support {
    use std::collections::HashSet;
    use std::io::BufReader;
    use std::path::Path;

    use super::{HEIGHT, WIDTH};
    use crate::{Error, Result};

    /// Decodes the PNG at `path` and checks it is a full-size RGB chart, not a blank canvas, with
    /// its title drawn (dark text in the top band: the embedded font works).
    pub fn assert_chart_png(path: &Path) {
        let file = std::fs::File::open(path).expect("chart file exists");
        let mut reader = png::Decoder::new(BufReader::new(file)).read_info().expect("a PNG header");
        let mut pixels = vec![0; reader.output_buffer_size().expect("an image that fits in memory")];
        let info = reader.next_frame(&mut pixels).expect("PNG image data");
        assert_eq!((info.width, info.height), (WIDTH, HEIGHT));
        assert_eq!((info.color_type, info.bit_depth), (png::ColorType::Rgb, png::BitDepth::Eight));

        let colours: HashSet<&[u8]> = pixels.chunks_exact(3).collect();
        assert!(colours.len() > 20, "only {} distinct colours: a blank chart?", colours.len());
        let title_band = &pixels[..50 * WIDTH as usize * 3];
        let dark = title_band.chunks_exact(3).filter(|rgb| rgb.iter().all(|&c| c < 100)).count();
        assert!(dark > 20, "only {dark} dark pixels where the title should be");
    }

    /// Checks that writing into a directory that does not exist fails with `Error::Chart` naming
    /// the file, and leaves nothing behind.
    pub fn assert_missing_directory_is_reported(write: impl FnOnce(&Path) -> Result<()>) {
        let dir = tempfile::tempdir().expect("temporary directory");
        let path = dir.path().join("missing").join("chart.png");
        match write(&path) {
            Err(Error::Chart { path: named, reason }) => {
                assert_eq!(named, path.display().to_string());
                assert!(reason.contains("cannot write"), "{reason}");
            }
            other => panic!("expected a chart error, got {other:?}"),
        }
        assert!(!path.exists());
    }
}
