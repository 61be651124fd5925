//! `count --plot FILE.svg`: the level profile drawn with plotters.

use std::path::Path;

use anyhow::{Context, Result};
use plotters::prelude::*;

use reach::engine::Report;

/// Draws the states at each depth twice, on a linear and a log scale, with
/// the total and the depth in the title, into an SVG file: each level a
/// point on a line (so that a one-level profile shows), and the goal's
/// depth, when `goal` gives it, as a dashed line.
pub fn profile(
    file: &Path,
    puzzle: &str,
    metric: Option<&str>,
    report: &Report,
    goal: Option<u32>,
) -> Result<()> {
    let levels = &report.levels;
    let depth = report.depth();
    let widest = levels.iter().copied().max().unwrap_or(1).max(1);
    let title = format!(
        "{puzzle}{}: {}, depth {depth}{}",
        metric.map_or(String::new(), |m| format!(" ({m} moves)")),
        if report.states() == 1 {
            "1 state".to_string()
        } else {
            format!("{} states", report.states())
        },
        match (report.is_complete(), super::exit::as_asked(report)) {
            (true, _) => "",
            (false, Some(_)) => " (as asked)",
            (false, None) => " (partial)",
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
        let labels = ("sans-serif", 15);
        let goal_style = ShapeStyle::from(&BLACK.mix(0.7)).stroke_width(2);

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
            .label_style(labels)
            .axis_desc_style(labels)
            .draw()?;
        linear.draw_series(LineSeries::new(
            levels.iter().enumerate().map(|(d, &n)| (d as u32, n)),
            &BLUE,
        ))?;
        linear.draw_series(
            levels
                .iter()
                .enumerate()
                .map(|(d, &n)| Circle::new((d as u32, n), 3, BLUE.filled())),
        )?;
        if let Some(g) = goal {
            let top = widest + widest / 20;
            linear
                .draw_series(DashedLineSeries::new([(g, 0), (g, top)], 6, 4, goal_style))?
                .label(format!("the goal, at depth {g}"))
                .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK));
            linear
                .configure_series_labels()
                .label_font(labels)
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()?;
        }

        let mut log = ChartBuilder::on(&lower)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .caption("states at each depth (log scale)", ("sans-serif", 16))
            .build_cartesian_2d(0u32..x_max, (1u64..widest * 2).log_scale())?;
        log.configure_mesh()
            .x_desc("depth (moves from the start)")
            .y_desc("states")
            .label_style(labels)
            .axis_desc_style(labels)
            .draw()?;
        log.draw_series(LineSeries::new(
            levels
                .iter()
                .enumerate()
                .map(|(d, &n)| (d as u32, n.max(1))),
            &RED,
        ))?;
        log.draw_series(
            levels
                .iter()
                .enumerate()
                .map(|(d, &n)| Circle::new((d as u32, n.max(1)), 3, RED.filled())),
        )?;
        if let Some(g) = goal {
            log.draw_series(DashedLineSeries::new(
                [(g, 1), (g, widest * 2 - 1)],
                6,
                4,
                goal_style,
            ))?;
        }
        root.present()
            .with_context(|| format!("drawing {}", file.display()))?;
    }
    super::output::write_output(file, svg.as_bytes())?;
    Ok(())
}
