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
    let svg = profile_svg(puzzle, metric, report, goal)
        .with_context(|| format!("drawing {}", file.display()))?;
    super::output::write_output(file, svg.as_bytes())?;
    Ok(())
}

/// [`profile`]'s picture, as the text of an SVG document.
pub fn profile_svg(
    puzzle: &str,
    metric: Option<&str>,
    report: &Report,
    goal: Option<u32>,
) -> Result<String> {
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
        // A quarter above the widest level: room for the legend above
        // every point.
        let top = widest + widest / 4;

        let mut linear = ChartBuilder::on(&upper)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(80)
            .caption("states at each depth (linear)", ("sans-serif", 16))
            .build_cartesian_2d(0u32..x_max, 0u64..top + 1)?;
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
            linear
                .draw_series(DashedLineSeries::new([(g, 0), (g, top)], 6, 4, goal_style))?
                .label(format!("the goal, at depth {g}"))
                // Dashed, as the line it stands for.
                .legend(move |(x, y)| {
                    EmptyElement::at((x, y))
                        + PathElement::new([(0, 0), (7, 0)], goal_style)
                        + PathElement::new([(12, 0), (19, 0)], goal_style)
                });
            linear
                .configure_series_labels()
                .position(legend_corner(levels))
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
        root.present()?;
    }
    Ok(svg)
}

/// Where the goal's legend goes: the upper corner over the third of the
/// depths whose widest level is the narrower. With the linear chart's
/// quarter of headroom it is then above every point there (a profile that
/// peaks late, as many do, keeps its peak clear on the right).
fn legend_corner(levels: &[u64]) -> SeriesLabelPosition {
    let third = levels.len().div_ceil(3);
    let left = levels[..third].iter().max();
    let right = levels[levels.len() - third..].iter().max();
    if right <= left {
        SeriesLabelPosition::UpperRight
    } else {
        SeriesLabelPosition::UpperLeft
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_goes_where_the_levels_are_low() {
        // 76 levels, widest at depths 57-62: the upper right would cover
        // them.
        let late: Vec<u64> = (0..76u64).map(|d| 10_000 - d.abs_diff(60).pow(2)).collect();
        assert!(matches!(
            legend_corner(&late),
            SeriesLabelPosition::UpperLeft
        ));
        let early: Vec<u64> = late.iter().rev().copied().collect();
        assert!(matches!(
            legend_corner(&early),
            SeriesLabelPosition::UpperRight
        ));
        // One level: somewhere, without a panic.
        legend_corner(&[1]);
    }
}
