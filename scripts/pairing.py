"""The laptop's half of a pairing driven by a script, as a wearer would do it: run `amble
pair`, read the code it prints, compare it with the code the band shows, answer y or n.
Used by scripts/chaos.py and scripts/package.d/check_in_root.py."""

import os
import re
import select
import subprocess
import time


def pair_comparing_codes(argv, band_code, timeout=30):
    """Runs `argv` (an `amble pair` command line), reads its output until it asks, and answers
    y when its code is the one `band_code()` returns (the band's, or None), else n. Returns
    (exit status, everything it printed, whether the codes were the same)."""
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = ""
    deadline = time.time() + timeout
    while time.time() < deadline and "[y/n]" not in out.lower():
        ready, _, _ = select.select([p.stdout], [], [], 0.2)
        if ready:
            chunk = os.read(p.stdout.fileno(), 4096)
            if not chunk:
                break
            out += chunk.decode(errors="replace")
    codes = re.findall(r"[0-9]{3} [0-9]{3}", out)
    shown = band_code()
    same = bool(codes and shown and codes[0] == shown)
    try:
        rest, _ = p.communicate("y\n" if same else "n\n", timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        rest = ""
    return p.returncode, out + (rest or ""), same
