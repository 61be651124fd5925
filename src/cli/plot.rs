//! `count --plot FILE.svg`: the level profile drawn with plotters.

use std::path::Path;

use anyhow::{Context, Result};
use plotters::prelude::*;

use reach::engine::Report;

/// Draws the states at each depth twice, on a linear and a log scale, with
/// the total and the depth in the title, into an SVG file.
pub fn profile(file: &Path, puzzle: &str, metric: Option<&str>, report: &Report) -> Result<()> {
    let levels = &report.levels;
    let depth = report.depth();
    let widest = levels.iter().copied().max().unwrap_or(1).max(1);
    let title = format!(
        "{puzzle}{}: {} states, depth {depth}{}",
        metric.map_or(String::new(), |m| format!(" ({m} moves)")),
        report.states(),
        if report.is_complete() {
            ""
        } else {
            " (partial)"
        }
    );
    // Drawn into memory, then written whole (a failure leaves no file).
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 720)).into_drawing_area();
        root.fill(&WHITE)?;
        let root = root.titled(&title, ("sans-serif", 22))?;
        let (upper, lower) = root.split_vertically(340);
        let x_max = depth.max(1);

        let mut linear = ChartBuilder::on(&upper)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .caption("states at each depth (linear)", ("sans-serif", 16))
            .build_cartesian_2d(0u32..x_max, 0u64..widest + widest / 20 + 1)?;
        linear
            .configure_mesh()
            .x_desc("depth (moves from the start)")
            .y_desc("states")
            .draw()?;
        linear.draw_series(LineSeries::new(
            levels.iter().enumerate().map(|(d, &n)| (d as u32, n)),
            &BLUE,
        ))?;

        let mut log = ChartBuilder::on(&lower)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .caption("states at each depth (log scale)", ("sans-serif", 16))
            .build_cartesian_2d(0u32..x_max, (1u64..widest * 2).log_scale())?;
        log.configure_mesh()
            .x_desc("depth (moves from the start)")
            .y_desc("states")
            .draw()?;
        log.draw_series(LineSeries::new(
            levels
                .iter()
                .enumerate()
                .map(|(d, &n)| (d as u32, n.max(1))),
            &RED,
        ))?;
        root.present()
            .with_context(|| format!("drawing {}", file.display()))?;
    }
    super::output::write_output(file, svg.as_bytes())?;
    Ok(())
}
