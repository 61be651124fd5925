"""The Python bindings against published figures, the command line and
themselves. Run by scripts/python-check.sh against the wheel it builds."""

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

import puzzle_reach as reach

ROOT = Path(__file__).resolve().parents[2]
REACH = os.environ.get("REACH_BIN", str(ROOT / "target" / "release" / "reach"))

DIRS = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


def test_pe766():
    assert reach.count("pe766", threads=2).states == 2613742


def test_klotski_levels_equal_the_command_lines():
    ours = reach.count("klotski", threads=2)
    cli = json.loads(subprocess.run(
        [REACH, "count", "klotski", "--json", "-j", "2"],
        capture_output=True, text=True, check=True).stdout)
    assert ours.levels == cli["levels"]
    assert ours.states == cli["states"] == 25955
    assert ours.complete and ours.stop_reason is None
    assert ours.peak_rss_bytes and ours.peak_rss_bytes > 0


def test_threads_give_equal_levels():
    one = reach.count("rush-hour", threads=1)
    two = reach.count("rush-hour", threads=2)
    assert one.levels == two.levels
    assert one.threads == 1 and two.threads == 2


def replay(board, moves):
    """Applies sliding-block moves ("J left", "B down right") to a board
    drawn a cell a character ('.' empty), checking each is legal."""
    grid = [list(row) for row in board.splitlines()]
    boards = []
    for move in moves:
        label, *path = move.split()
        for d in path:
            dr, dc = DIRS[d]
            cells = [(r, c) for r, row in enumerate(grid)
                     for c, v in enumerate(row) if v == label]
            assert cells, f"no piece {label}"
            for r, c in cells:
                nr, nc = r + dr, c + dc
                assert 0 <= nr < len(grid) and 0 <= nc < len(grid[0])
                assert grid[nr][nc] in (".", label), f"{move} runs into {grid[nr][nc]}"
            for r, c in cells:
                grid[r][c] = "."
            for r, c in cells:
                grid[r + dr][c + dc] = label
        boards.append("\n".join("".join(row) for row in grid) + "\n")
    return boards


def test_a_solution_replays_to_the_goal():
    s = reach.solve("klotski", threads=2)
    assert s.length == len(s.moves) == 116
    assert len(s.boards) == s.length + 1
    assert replay(s.boards[0], s.moves) == s.boards[1:]
    last = s.boards[-1].splitlines()
    # Klotski's goal: the 2x2 piece B on the middle of the bottom rows.
    assert [row[1:3] for row in last[-2:]] == ["BB", "BB"]


def test_a_twisty_solve_from_a_scramble():
    s = reach.solve(ROOT / "tests" / "data" / "cube2.tws", scramble="R U F'", threads=2)
    assert s.length == 3
    assert len(s.moves) == 3


def test_puzzle_text_and_hardest():
    text = textwrap.dedent('''\
        name = "two by three"
        distinct = "*"
        board = """
        12.
        345
        """
        goal = """
        123
        45.
        """
        ''')
    c = reach.count("mine.toml", text=text, threads=1)
    assert c.states == 360 and c.depth == 21
    h = reach.hardest("mine.toml", text=text, threads=1)
    assert h.distance == 21 and h.component == 360 and h.count == len(h.boards)


def test_symmetry_keeps_classes_and_gives_positions():
    # Klotski's mirror: the same levels, farthest boards, solution length
    # and hardest boards as every position searched; a real solution.
    auto = reach.count("klotski", threads=2)
    none = reach.count("klotski", threads=2, symmetry="none")
    assert auto.levels == none.levels
    assert none.class_levels is None
    assert sum(auto.class_levels) == 13011
    assert sorted(auto.farthest) == sorted(none.farthest) and len(none.farthest) == 4
    s = reach.solve("klotski", threads=2, metric="piece")
    plain = reach.solve("klotski", threads=2, metric="piece", symmetry="none")
    assert s.length == plain.length == 81
    assert s.report.class_levels is not None and plain.report.class_levels is None
    h = reach.hardest("klotski", threads=2, metric="piece")
    hp = reach.hardest("klotski", threads=2, metric="piece", symmetry="none")
    assert (h.distance, h.count, h.boards, h.goal_states) == (hp.distance, hp.count, hp.boards, hp.goal_states)
    assert h.report.class_levels is not None and h.goal_states == 964
    # The 2x2x2 in <U,F,R> by its corner's three-fold turn, the three
    # mirrors through that corner, and the inverse: the same table; the
    # rotations alone keep more classes; a solve walks real moves.
    cube = ROOT / "tests" / "data" / "cube2-rotations.tws"
    on = reach.count(cube, threads=2, moves=["U", "F", "R"], metric="qtm", symmetry="on")
    rot = reach.count(cube, threads=2, moves=["U", "F", "R"], metric="qtm", symmetry="rotations")
    off = reach.count(cube, threads=2, moves=["U", "F", "R"], metric="qtm", symmetry="none")
    assert on.levels == rot.levels == off.levels and on.states == 3674160
    assert sum(on.class_levels) < sum(rot.class_levels) < on.states // 4
    # A start that rotations fix: real moves from it to solved.
    scramble = "U2 F2 R2 U2 F2 R2"
    t = reach.solve(cube, threads=2, scramble=scramble, symmetry="on")
    tp = reach.solve(cube, threads=2, scramble=scramble, symmetry="none")
    assert t.length == tp.length == 4 and len(t.boards) == 5
    assert t.report.class_levels is not None and tp.report.class_levels is None
    assert (t.boards[0], t.boards[-1]) == (tp.boards[0], tp.boards[-1])
    with pytest.raises(reach.ReachError, match="unknown symmetry"):
        reach.count("klotski", symmetry="yes")


def test_census_of_klotski():
    c = reach.census("klotski", threads=2, top=3)
    assert c.positions == 65880
    assert c.components == 898
    assert c.distance == 126
    assert [h.distance for h in c.hardest][:1] == [126]
    assert sum(size * n for size, n in c.size_histogram) == c.positions


def test_census_of_tiles_and_of_a_twisty_puzzle():
    nine = reach.census("tiles-3x3", threads=2, top=2)
    assert nine.positions == 362880 and nine.size_histogram == [(181440, 2)]
    assert nine.distance == 31 and [h.distance for h in nine.hardest] == [31, 31]
    cube = ROOT / "tests" / "data" / "cube2.tws"
    c = reach.census(cube, threads=2, moves=["U", "F"], top=1)
    assert (c.positions, c.components, c.start_component) == (174960, 6, 29160)
    assert c.levels == reach.count(cube, threads=2, moves=["U", "F"]).levels
    assert c.hardest[0].board.startswith("CORNERS")


def test_limits_stop_with_what_was_found():
    r = reach.count("pe766", threads=2, max_depth=10)
    assert not r.complete and r.depth == 10
    assert "depth" in r.stop_reason


def test_a_bad_file_raises_with_its_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('board = """\nAA.\nA#Q\n"""\ngoal = 7\n')
    with pytest.raises(reach.ReachError) as e:
        reach.count(bad)
    assert f"{bad}:" in str(e.value)
    assert e.value.message and e.value.message in str(e.value)


def test_unknown_names_and_options_raise_with_help():
    with pytest.raises(reach.ReachError) as e:
        reach.count("no-such-puzzle")
    assert e.value.help and "built-ins" in e.value.help
    with pytest.raises(reach.ReachError) as e:
        reach.count("klotski", metric="qtm")
    assert "sliding-block" in str(e.value)
    assert "--" not in str(e.value), "the library's words, not the command line's flags"
    with pytest.raises(reach.ReachError):
        reach.count("klotski", memory_limit="lots")


def test_progress_is_called_once_a_level_and_can_stop_the_search():
    seen = []
    r = reach.count("klotski", threads=2, progress=seen.append)
    assert [e["depth"] for e in seen] == list(range(len(r.levels)))
    assert [e["level_states"] for e in seen] == r.levels

    class Enough(Exception):
        pass

    def stop_at_5(event):
        if event["depth"] == 5:
            raise Enough()

    with pytest.raises(Enough):
        reach.count("klotski", threads=2, progress=stop_at_5)


def test_levels_to_pandas():
    pd = pytest.importorskip("pandas")
    frame = reach.count("klotski", threads=2).to_pandas()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["depth", "states"]
    assert frame["states"].sum() == 25955


def test_checkpoint_and_resume(tmp_path):
    d = tmp_path / "levels"
    partial = reach.count("pe766", threads=2, spill=d, checkpoint=True, max_depth=40)
    assert not partial.complete
    full = reach.resume(d, threads=2)
    assert full.complete and full.states == 2613742
    assert full.levels[:41] == partial.levels


def test_a_checkpoint_by_classes_resumes_by_classes(tmp_path):
    d = tmp_path / "levels"
    partial = reach.count("klotski", threads=2, spill=d, checkpoint=True, max_depth=60)
    assert not partial.complete and partial.class_levels is not None
    full = reach.resume(d, threads=2)
    assert full.complete and full.states == 25955
    assert full.class_levels[:61] == partial.class_levels
    assert sum(full.class_levels) == 13011


def test_ctrl_c_raises_keyboard_interrupt_within_a_second():
    # Python's own SIGINT handler, as an interactive session has it: a
    # child started from a background job inherits SIGINT ignored (POSIX
    # sh ignores it for an asynchronous list), and Python then installs
    # none, so no Ctrl-C would ever reach it.
    script = textwrap.dedent('''\
        import signal, sys, puzzle_reach as reach
        signal.signal(signal.SIGINT, signal.default_int_handler)
        def told(event):
            if event["depth"] == 20:
                print("searching", flush=True)
        try:
            reach.count("tiles-4x4", threads=2, progress=told)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(7)
        ''')
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "searching"
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        try:
            code = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            # Where it was (gdb, where installed), to say why.
            stacks = subprocess.run(
                ["gdb", "-p", str(p.pid), "-batch", "-ex", "thread apply all bt 16"],
                capture_output=True, text=True).stdout if shutil.which("gdb") else "(no gdb)"
            raise AssertionError(f"not stopped 10 s after SIGINT; its threads:\n{stacks}")
        took = time.monotonic() - sent
    finally:
        p.kill()
    assert code == 7, "the count raised KeyboardInterrupt"
    assert p.stdout.read().strip() == "interrupted"
    assert took < 1.0, f"KeyboardInterrupt came {took:.2f} s after SIGINT"


def test_the_guides_example_runs_as_shown(tmp_path):
    """docs/python.md's example, run in a directory of its own where
    tests/ leads to the repository's: it counts, solves and plots."""
    pytest.importorskip("matplotlib")
    import re
    text = (ROOT / "docs" / "python.md").read_text()
    example = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    out = subprocess.run([sys.executable, "-c", "import matplotlib; matplotlib.use('Agg')\n" + example],
                         cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("2613742 1368 ")
    assert lines[2].startswith("116 ['I right', 'D down'")
    assert (tmp_path / "klotski-levels.png").stat().st_size > 10000

