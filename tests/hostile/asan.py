"""asan.py: what the hostile runners share: stderr without AddressSanitizer's notes, and the wait
for a program that was sent a signal."""

import subprocess


def without_asan_notes(lines):
    """stderr without the 3-line warning an AddressSanitizer build prints when SimGrid switches to an
    actor's stack (any run of a forked simulation, signal or not): not the program's output."""
    out, skip = [], 0
    for line in lines:
        if "WARNING: ASan is ignoring requested __asan_handle_no_return" in line:
            skip = 3
        if skip:
            skip -= 1
            continue
        out.append(line)
    return out


def signal_and_wait(p, sig, seconds=30):
    """Send sig (None: none, it was sent already) to the Popen p and collect its stderr: (exit status,
    stderr, whether it ended by itself within seconds; killed otherwise)."""
    if sig is not None:
        p.send_signal(sig)
    try:
        _, err = p.communicate(timeout=seconds)
        return p.returncode, err, True
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
        return p.returncode, err, False
