"""Exact puzzle state spaces from Python: the reach engine.

Every function takes a puzzle by name: a built-in (``"pe766"``,
``"klotski"``, ``"rush-hour"``, ``"eight"``, ...), ``"tiles-RxC"``, or the
path of a puzzle file (sliding blocks in TOML, twisty puzzles in ``.tws``
or KPuzzle JSON). With ``text=``, the puzzle is that text and the name
only names it (its extension, ``.toml`` or ``.tws``, says which kind).

A search runs without the GIL; Ctrl-C stops it and raises
KeyboardInterrupt. ``progress`` is called with a dict per level (depth,
level_states, total_states, seconds, expected_states, stage).

>>> import puzzle_reach as reach
>>> reach.count("pe766", threads=2).states
2613742
"""

from __future__ import annotations

import os
import re
from typing import Any, Callable, Optional, Sequence, Union

from ._native import Census, Hardest, HardStart, ReachError, Report, Solution, __version__
from . import _native

__all__ = [
    "count",
    "solve",
    "hardest",
    "census",
    "resume",
    "Report",
    "Solution",
    "Hardest",
    "Census",
    "HardStart",
    "ReachError",
    "__version__",
]

PuzzleName = Union[str, "os.PathLike[str]"]
Progress = Callable[[dict], Any]
Size = Union[int, str, None]

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _bytes(size: Size) -> Optional[int]:
    """A size in bytes: an int, or a string such as "512M" or "2G"."""
    if size is None or isinstance(size, int):
        if isinstance(size, int) and size <= 0:
            raise ReachError(f"memory_limit must be positive, got {size}")
        return size
    m = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)i?B?\s*", str(size), re.IGNORECASE)
    if not m:
        raise ReachError(
            f"memory_limit {size!r} is not a size\n  help: give bytes as an int, or a string such as \"512M\" or \"2G\""
        )
    return int(m.group(1)) * _UNITS[m.group(2).upper()]


def _options(
    text: Optional[str] = None,
    threads: int = 0,
    metric: Optional[str] = None,
    moves: Optional[Sequence[str]] = None,
    scramble: Optional[str] = None,
    max_depth: Optional[int] = None,
    max_states: Optional[int] = None,
    memory_limit: Size = None,
    spill: Optional[PuzzleName] = None,
    checkpoint: bool = False,
    top: int = 10,
    symmetry: str = "auto",
    progress: Optional[Progress] = None,
) -> dict:
    if threads < 0:
        raise ReachError(f"threads must be 0 (every core) or more, got {threads}")
    return {
        "text": text,
        "threads": threads,
        "metric": metric,
        "moves": list(moves) if moves is not None else None,
        "scramble": scramble,
        "max_depth": max_depth,
        "max_states": max_states,
        "memory_limit": _bytes(memory_limit),
        "spill": os.fspath(spill) if spill is not None else None,
        "checkpoint": checkpoint,
        "top": top,
        "symmetry": symmetry,
        "progress": progress,
    }


def _run(command: str, puzzle: PuzzleName, **options: Any) -> Any:
    return _native.run(command, os.fspath(puzzle), _options(**options))


def count(
    puzzle: PuzzleName,
    *,
    text: Optional[str] = None,
    threads: int = 0,
    metric: Optional[str] = None,
    moves: Optional[Sequence[str]] = None,
    max_depth: Optional[int] = None,
    max_states: Optional[int] = None,
    memory_limit: Size = None,
    spill: Optional[PuzzleName] = None,
    checkpoint: bool = False,
    symmetry: str = "auto",
    progress: Optional[Progress] = None,
) -> Report:
    """Counts the states reachable from the puzzle's start, level by level.

    threads: worker threads (0: every core). metric: step, slide or piece
    (sliding blocks), htm, qtm or moves (twisty puzzles). moves: a twisty
    puzzle's generators. max_depth, max_states, memory_limit (bytes, or
    "2G"): stop early, with what was found (``complete`` is then False and
    ``stop_reason`` says why). spill: a directory for the levels on disk;
    checkpoint: keep them resumable there (see resume()). symmetry:
    "auto" keeps one position of each class of symmetric positions (a
    twisty file's rotations, a board's mirrors) unless every position
    fits the dense store, "on" wherever the puzzle has a symmetry,
    "rotations" the same without mirror images, "none" never; the levels are positions either way, and ``class_levels`` the
    classes kept.
    """
    return _run(
        "count", puzzle,
        text=text, threads=threads, metric=metric, moves=moves,
        max_depth=max_depth, max_states=max_states, memory_limit=memory_limit,
        spill=spill, checkpoint=checkpoint, symmetry=symmetry, progress=progress,
    )


def solve(
    puzzle: PuzzleName,
    *,
    text: Optional[str] = None,
    threads: int = 0,
    metric: Optional[str] = None,
    moves: Optional[Sequence[str]] = None,
    scramble: Optional[str] = None,
    max_depth: Optional[int] = None,
    max_states: Optional[int] = None,
    memory_limit: Size = None,
    spill: Optional[PuzzleName] = None,
    checkpoint: bool = False,
    symmetry: str = "auto",
    progress: Optional[Progress] = None,
) -> Solution:
    """A shortest solution from the start to the goal (a twisty puzzle:
    from ``scramble`` or its file's scramble to solved). ``length`` is None
    when there is none; ``moves`` are as ``reach solve`` prints them and
    ``boards`` the positions from the start to the goal, real moves from
    the real start also where the search kept classes of symmetric
    positions (``symmetry``, as count() takes it)."""
    return _run(
        "solve", puzzle,
        text=text, threads=threads, metric=metric, moves=moves,
        scramble=scramble, max_depth=max_depth, max_states=max_states,
        memory_limit=memory_limit, spill=spill, checkpoint=checkpoint,
        symmetry=symmetry, progress=progress,
    )


def hardest(
    puzzle: PuzzleName,
    *,
    text: Optional[str] = None,
    threads: int = 0,
    metric: Optional[str] = None,
    moves: Optional[Sequence[str]] = None,
    max_depth: Optional[int] = None,
    max_states: Optional[int] = None,
    memory_limit: Size = None,
    symmetry: str = "auto",
    progress: Optional[Progress] = None,
) -> Hardest:
    """The positions of the start's component farthest from every goal
    position: their ``distance``, ``count`` and ``boards`` (at most 1000),
    positions also where the search kept classes of symmetric positions
    (``symmetry``, as count() takes it)."""
    return _run(
        "hardest", puzzle,
        text=text, threads=threads, metric=metric, moves=moves,
        max_depth=max_depth, max_states=max_states, memory_limit=memory_limit,
        symmetry=symmetry, progress=progress,
    )


def census(
    puzzle: PuzzleName,
    *,
    text: Optional[str] = None,
    threads: int = 0,
    metric: Optional[str] = None,
    moves: Optional[Sequence[str]] = None,
    top: int = 10,
    max_depth: Optional[int] = None,
    memory_limit: Size = None,
    progress: Optional[Progress] = None,
) -> Census:
    """Every position of a puzzle's pieces (not only the start's
    component): a sliding-block board's every placement (``tiles-RxC`` as
    the board of its tiles, solved as its goal), a twisty puzzle's every
    pattern (``moves``: its generators); its components, and the ``top``
    hardest starts of all (farthest from the nearest goal)."""
    return _run(
        "census", puzzle,
        text=text, threads=threads, metric=metric, moves=moves,
        max_depth=max_depth, memory_limit=memory_limit, top=top,
        progress=progress,
    )


def resume(
    directory: PuzzleName,
    *,
    threads: int = 0,
    max_depth: Optional[int] = None,
    max_states: Optional[int] = None,
    memory_limit: Size = None,
    progress: Optional[Progress] = None,
) -> Union[Report, Solution]:
    """Continues a search that count() or solve() checkpointed in
    ``directory`` (spill=..., checkpoint=True) to the result an
    uninterrupted run gives."""
    return _native.resume(
        os.fspath(directory),
        _options(threads=threads, max_depth=max_depth, max_states=max_states,
                 memory_limit=memory_limit, progress=progress),
    )
