//! Integration tests, in one binary to keep link times down.

mod census;
mod cli;
mod cluster;
mod contest;
mod dense;
mod docs;
mod edges;
mod engine;
mod files;
mod replay;
mod resume;
mod sliding;
mod spill;
mod symmetry;
mod tiles;
mod twisty;

/// The reach binary, ready to be given arguments.
pub fn reach() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("reach").unwrap()
}

/// The JSON document that `command` printed, which must succeed.
pub fn json_out(command: &mut assert_cmd::Command) -> serde_json::Value {
    let out = command.assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

/// A checkpoint of `puzzle` in `dir`, stopped by `--max-depth depth` (exit
/// 0: the depth asked; the checkpoint stays, to go deeper).
pub fn checkpoint_at(puzzle: &str, depth: u32, dir: &std::path::Path) {
    reach()
        .args([
            "count",
            puzzle,
            "--max-depth",
            &depth.to_string(),
            "--checkpoint",
        ])
        .arg(dir)
        .assert()
        .code(0);
}
