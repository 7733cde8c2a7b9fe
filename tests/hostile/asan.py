"""asan.py: what the hostile runners share: stderr without AddressSanitizer's notes."""


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
