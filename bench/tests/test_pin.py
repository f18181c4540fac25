"""bench._pin (``bench hostile --pin-pages``): which processes go to which CPU, and that they go there.

    .venv/bin/python -m pytest bench/tests/test_pin.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import _pin

BROWSER, EXTENSION = "/chrome --no-sandbox --remote-debugging-port=1", "/chrome --type=renderer --extension-process"
RENDERER, GPU = "/chrome --type=renderer --renderer-client-id=7", "/chrome --type=gpu-process"
NETWORK, ZYGOTE = "/chrome --type=utility --utility-sub-type=network.mojom.NetworkService", "/chrome --type=zygote"


def test_fewer_than_two_cpus_are_refused_and_the_pages_get_the_last() -> None:
    with pytest.raises(SystemExit, match="needs two CPUs; this process may use 1 \\(0\\)"):
        _pin.pin_cpus({0})
    assert _pin.pin_cpus({3, 1}) == (1, 3)
    assert _pin.pin_cpus({0, 1, 2, 3}) == (0, 3)


def test_every_renderer_but_the_extension_s_and_the_innocent_tab_s_is_pinned_away() -> None:
    cmdlines = {1: BROWSER, 2: ZYGOTE, 3: GPU, 4: NETWORK, 5: EXTENSION, 6: RENDERER, 7: RENDERER, 8: RENDERER}
    assert _pin.hostile_renderers(cmdlines, keep={6}) == {7, 8}
    assert _pin.hostile_renderers(cmdlines, keep=set()) == {6, 7, 8}
    driver = "/venv/playwright/driver/node /venv/playwright/driver/package/cli.js run-driver"
    assert _pin.playwright_drivers({**cmdlines, 9: driver, 10: "/venv/bin/python -m bench hostile"}) == {9}


def test_a_tab_s_renderer_is_the_one_its_busy_loop_ran_in() -> None:
    before = {1: ("browser", 1.0), 5: ("extension", 0.5), 6: ("pages", 0.2), 7: ("pages", 0.3), 9: ("gpu", 0.1)}
    ran = {1: ("browser", 1.3), 5: ("extension", 0.52), 6: ("pages", 0.21), 7: ("pages", 0.62), 9: ("gpu", 0.4),
           10: ("pages", 0.05)}  # the browser and the GPU process worked too; 10 is new (not counted)
    assert _pin.busiest_renderer(before, ran, 0.4) == 7
    with pytest.raises(LookupError, match=r"no one renderer ran a 0\.4 s busy loop"):  # none ran it
        _pin.busiest_renderer(before, {**ran, 7: ("pages", 0.35)}, 0.4)
    with pytest.raises(LookupError):  # two ran alike: no guess
        _pin.busiest_renderer(before, {**ran, 6: ("pages", 0.45)}, 0.4)


def test_the_machine_s_busy_share_per_cpu() -> None:
    before = {0: (100, 1000), 1: (50, 1000)}
    after = {0: (150, 1100), 1: (50, 1100), 2: (5, 10)}  # 2 was not read before
    assert _pin.busy_between(before, after) == {0: 0.5, 1: 0.0}
    now = _pin.cpu_jiffies()
    assert set(now) >= os.sched_getaffinity(0) and all(0 <= busy <= total for busy, total in now.values())


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[dict[str, int]]:
    """A parent (the "browser") with four children whose command lines read as Chromium's, each with a
    second thread, as real processes."""
    script = tmp_path / "child.py"
    script.write_text("import threading, time\nthreading.Thread(target=time.sleep, args=(60,)).start()\n"
                      "time.sleep(60)\n")
    parent = subprocess.Popen(
        [sys.executable, "-c", "import subprocess, sys, time\n"
         "kids = [subprocess.Popen([sys.executable, sys.argv[1], *a.split()]) for a in sys.argv[2:]]\n"
         "print(' '.join(str(k.pid) for k in kids), flush=True)\ntime.sleep(60)\n",
         str(script), "--type=renderer --extension-process", "--type=renderer", "--type=renderer", "--type=gpu-process"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        extension, innocent, hostile, gpu = map(int, parent.stdout.readline().split())
        while any(len(os.listdir(f"/proc/{pid}/task")) < 2 or "--type" not in Path(f"/proc/{pid}/cmdline").read_text()
                  for pid in (extension, innocent, hostile, gpu)):
            time.sleep(0.02)  # each child started and made its thread
        yield {"browser": parent.pid, "extension": extension, "innocent": innocent, "hostile": hostile, "gpu": gpu}
    finally:
        for pid in _pin.descendants(parent.pid):
            os.kill(pid, 9)
        parent.kill()
        parent.wait()


def test_the_pinner_moves_every_thread_of_the_hostile_renderers_and_nothing_else(tree: dict[str, int]) -> None:
    main_cpu, page_cpu = _pin.pin_cpus()
    assert set(_pin.descendants(tree["browser"])) == {tree[k] for k in ("extension", "innocent", "hostile", "gpu")}
    pinner = _pin.Pinner(tree["browser"], {tree["innocent"]}, page_cpu)
    pinner.sweep()
    assert pinner.pinned == {tree["hostile"]} and pinner.moves == 2  # both its threads
    assert _pin.tasks_off(tree["hostile"], page_cpu) == 0
    for name in ("browser", "extension", "innocent", "gpu"):  # left as they were: on both
        assert _pin.tasks_off(tree[name], page_cpu) == (1 if name == "browser" else 2)
    os.sched_setaffinity(tree["hostile"], {main_cpu})  # one thread moved back: the next sweep sees it
    pinner.sweep()
    assert pinner.moves == 3 and _pin.tasks_off(tree["hostile"], page_cpu) == 0


def test_the_bench_pins_itself_and_what_it_starts_then_puts_itself_back() -> None:
    main_cpu, _ = _pin.pin_cpus()
    before = os.sched_getaffinity(0)
    with _pin.pinned_self(main_cpu):
        assert os.sched_getaffinity(0) == {main_cpu}
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        try:
            assert os.sched_getaffinity(child.pid) == {main_cpu}
        finally:
            child.kill()
            child.wait()
    assert os.sched_getaffinity(0) == before


def test_a_process_that_turns_into_a_renderer_after_the_first_sweep_is_pinned(tmp_path: Path) -> None:
    """A zygote's child reads as the zygote until it sets its own command line: the pinner reads it again."""
    go, script = tmp_path / "go", tmp_path / "child.py"
    script.write_text("import os, sys, time\nif sys.argv[1] == '--type=zygote':\n"
                      f"    while not os.path.exists({str(go)!r}):\n        time.sleep(0.01)\n"
                      "    os.execv(sys.executable, [sys.executable, sys.argv[0], '--type=renderer'])\n"
                      "time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", "import subprocess, sys, time\n"
                               "kid = subprocess.Popen([sys.executable, sys.argv[1], '--type=zygote'])\n"
                               "print(kid.pid, flush=True)\ntime.sleep(60)\n", str(script)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        while "--type=zygote" not in Path(f"/proc/{child}/cmdline").read_text():
            time.sleep(0.01)
        _, page_cpu = _pin.pin_cpus()
        pinner = _pin.Pinner(parent.pid, set(), page_cpu)
        pinner.sweep()
        assert pinner.pinned == set()  # not a renderer (yet)
        go.touch()
        while "--type=renderer" not in Path(f"/proc/{child}/cmdline").read_text():
            time.sleep(0.01)
        pinner.sweep()
        assert pinner.pinned == {child} and _pin.tasks_off(child, page_cpu) == 0
    finally:
        for pid in _pin.descendants(parent.pid):
            os.kill(pid, 9)
        parent.kill()
        parent.wait()
