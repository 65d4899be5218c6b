"""How long pairdbg's reader of a program's pipe waits to gather small writes (backends/dap/terminal.py `Pace`):
long enough to join an unbuffered print's two writes, never so long that a loud program fills the pipe and stalls."""

from __future__ import annotations

from pairdbg.backends.dap.terminal import GATHER_BELOW, GATHER_S, PACE_WINDOW_S, Pace

PIPE = 1024 * 1024


def test_a_quiet_program_is_gathered_for_the_full_wait() -> None:
    pace = Pace(PIPE)
    now = 100.0
    for _ in range(20):  # a line every 20 ms, in two writes
        assert pace.gather(1023, now) == GATHER_S
        assert pace.gather(1, now + 0.001) == GATHER_S
        now += 0.02


def test_a_large_read_never_waits() -> None:
    pace = Pace(PIPE)
    assert pace.gather(GATHER_BELOW, 100.0) == 0.0
    assert pace.gather(64 * 1024, 100.001) == 0.0


def test_after_catching_up_with_a_loud_program_the_wait_fits_a_quarter_of_the_pipe() -> None:
    """500 MB/s (a print loop into a pipe): the small read after pairdbg caught up waits at most as long as that pace
    takes to fill a quarter of the pipe, in the window where the pace shows and in the next one."""
    pace, now, chunk = Pace(PIPE), 100.0, 64 * 1024
    rate = 500e6
    for _ in range(80):  # 5 MB, 10 ms at that pace
        assert pace.gather(chunk, now) == 0.0
        now += chunk / rate
    wait = pace.gather(1023, now)
    assert 0 < wait <= PIPE / 4 / rate * 1.01
    assert pace.gather(2048, now + wait) <= PIPE / 4 / rate * 1.01  # the last full window's pace holds


def test_a_small_pipe_waits_less_than_a_wide_one() -> None:
    """The same loud pace: the wait scales with what the pipe holds (a 16 KB pipe fills 64 times sooner)."""
    waits = []
    for size in (PIPE, 16 * 1024):
        pace, now = Pace(size), 100.0
        for _ in range(40):
            pace.gather(64 * 1024, now)
            now += 0.0001
        waits.append(pace.gather(100, now))
    assert waits[1] < waits[0] < GATHER_S
    assert abs(waits[0] / waits[1] - 64) < 1


def test_once_a_loud_program_turns_quiet_the_full_wait_comes_back() -> None:
    pace, now = Pace(PIPE), 100.0
    for _ in range(40):
        pace.gather(64 * 1024, now)
        now += 0.0001
    assert pace.gather(100, now) < GATHER_S
    for _ in range(3):  # two windows later, a line now and then
        now += PACE_WINDOW_S * 1.5
        last = pace.gather(1023, now)
    assert last == GATHER_S
