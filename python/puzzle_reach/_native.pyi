"""Type stubs of the extension module puzzle_reach._native."""

from typing import Any, Optional, Union

__version__: str

class ReachError(Exception):
    """A puzzle, an option or a search that reach refuses."""

    message: str
    help: Optional[str]

class Report:
    """A count's result, as ``reach count --json`` gives it."""

    puzzle: str
    metric: Optional[str]
    levels: list[int]
    states: int
    depth: int
    complete: bool
    stop_reason: Optional[str]
    seconds: float
    threads: int
    visited: str
    store: str
    key_bytes: int
    memory_bytes_per_state: Optional[float]
    peak_rss_bytes: Optional[int]
    farthest: Optional[list[str]]
    class_levels: Optional[list[int]]
    def to_pandas(self) -> Any: ...

class Solution:
    """A shortest solution, or (length None) why there is none."""

    length: Optional[int]
    moves: list[str]
    boards: list[str]
    report: Report

class Hardest:
    """The positions of the start's component farthest from every goal."""

    distance: int
    count: int
    boards: list[str]
    component: int
    goal_states: int
    start_distance: Optional[int]
    report: Report

class HardStart:
    """One of a census's hardest starts."""

    distance: int
    board: str
    component_size: int

class Census:
    """Every position of a puzzle's pieces, by component."""

    positions: int
    positions_exact: bool
    components: Optional[int]
    size_histogram: list[tuple[int, int]]
    start_component: Optional[int]
    goal_positions: Optional[int]
    goal_components: Optional[int]
    solvable: Optional[int]
    unsolvable: Optional[int]
    levels: list[int]
    distance: Optional[int]
    hardest: list[HardStart]
    complete: bool
    stop_reason: Optional[str]
    seconds: float
    threads: int
    peak_rss_bytes: Optional[int]
    def to_pandas(self) -> Any: ...

def run(command: str, name: str, options: dict[str, Any]) -> Union[Report, Solution, Hardest, Census]: ...
def resume(dir: str, options: dict[str, Any]) -> Union[Report, Solution]: ...
