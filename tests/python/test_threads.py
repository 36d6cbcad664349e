# The GIL is released while aligning (other threads run, two alignments run at once) and Ctrl-C
# stops a long alignment promptly with KeyboardInterrupt.
import os
import random
import signal
import threading
import time

import pytest

import swat_gpu


def random_dna(seed, length):
    rng = random.Random(seed)
    return "".join(rng.choice("ACGT") for _ in range(length))


def test_two_threads_align_while_python_runs():
    # Long enough that each call lasts well over 0.05 s: a single pair of unrelated sequences is
    # scanned first at the score passes' speed (8e9 cells, a few tenths of a second).
    a, b = random_dna(1, 90000), random_dna(2, 90000)
    expected = swat_gpu.align(a, b, device="cpu", threads=1, strand="plus")
    results, spans = {}, {}

    def work(name):
        t0 = time.monotonic()
        results[name] = swat_gpu.align(a, b, device="cpu", threads=1, strand="plus")
        spans[name] = (t0, time.monotonic())

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    ticks = 0
    t0 = time.monotonic()
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        ticks += 1  # runs only while neither alignment holds the GIL
        time.sleep(0.001)
    elapsed = time.monotonic() - t0
    for t in threads:
        t.join()
    assert results[0] == expected and results[1] == expected
    assert elapsed > 0.05
    assert ticks > 10, (ticks, elapsed)
    (s0, e0), (s1, e1) = spans[0], spans[1]
    assert s0 < e1 and s1 < e0  # the two calls overlapped


def test_ctrl_c_interrupts_a_long_alignment():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    a, b = random_dna(3, 200000), random_dna(4, 200000)  # 4e10 cells: minutes on one thread
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    t0 = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            swat_gpu.align(a, b, device="cpu", threads=1, strand="plus")
    finally:
        timer.cancel()
    assert time.monotonic() - t0 < 5
    # The package works on after it (a fresh engine).
    assert swat_gpu.align("ACGTACGTACGT", "ACGTACGTACGT", device="cpu")[0].score == 24
