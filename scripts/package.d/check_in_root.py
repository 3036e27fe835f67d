#!/usr/bin/env python3
"""The checks scripts/check-package runs inside a Debian root where the package is installed:
each program runs in the root (chroot), ambled as the package's `amble` user on the simulated
board (/etc/amble/board.toml on amd64). Pairing and the walk reuse scripts/chaos.py's scenario
scripts and its way of answering `amble pair`.

Usage: check_in_root.py ROOT VERSION; prints `ok`/`FAIL` lines, exits 1 if any check failed."""

import os
import re
import select
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from chaos import PAIR_SCRIPT, WALK_SCRIPT, log_wait  # noqa: E402
from pairing import pair_comparing_codes  # noqa: E402

ROOT, VERSION = sys.argv[1], sys.argv[2]
ENV = ["/usr/bin/env", "-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8"]
STORE = "/root/amble.sqlite"
failures = 0


def check(ok, what, detail=""):
    global failures
    print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else "\n  " + detail.strip()[-600:].replace("\n", "\n  ")))
    sys.stdout.flush()
    if not ok:
        failures += 1
    return ok


def run(*args, user=None, timeout=120, stdin=None):
    prefix = ["chroot"] + (["--userspec=%s:%s" % (user, user)] if user else []) + [ROOT]
    try:
        p = subprocess.run(prefix + ENV + ["HOME=/root"] + list(args), capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL if stdin is None else stdin)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return 124, "", "timed out"


def amble(*args, timeout=120):
    return run("/usr/bin/amble", "--store", STORE, *args, timeout=timeout)


class Band:
    """ambled in the root as the amble user, its log written outside the root's data folder."""

    def __init__(self, script, speed, log_path):
        with open(os.path.join(ROOT, "tmp", "band.script"), "w") as f:
            f.write(script)
        self.log_path = log_path
        self.offset = os.path.getsize(log_path) if os.path.exists(log_path) else 0
        self.log = open(log_path, "a")
        args = ["chroot", "--userspec=amble:amble", ROOT] + ENV + [
            "HOME=/var/lib/ambled", "/usr/bin/ambled", "--board", "/etc/amble/board.toml",
            "--data-dir", "/var/lib/ambled", "--listen", "127.0.0.1:0", "--no-keyboard",
            "--speed", str(speed), "--script", "/tmp/band.script", "--log-level", "debug"]
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=self.log, stdin=subprocess.DEVNULL)
        m = log_wait(log_path, r"serving sessions on ([0-9.]+:[0-9]+)", 30, self.proc, self.offset)
        self.address = m.group(1) if m else None

    def wait(self, pattern, timeout):
        return log_wait(self.log_path, pattern, timeout, self.proc, self.offset)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode


def tail(path):
    with open(path, errors="replace") as f:
        return f.read()[-1500:]


# --- The installed files, user and groups ---------------------------------------------------
for program in ("ambled", "amble"):
    code, out, err = run("/usr/bin/" + program, "--version")
    base = VERSION.split("+")[0]
    check(code == 0 and out.startswith(base), "%s --version prints %s (%s)" % (program, base, out.strip()), err)
    code, out, err = run("/usr/bin/ldd", "/usr/bin/" + program)
    check(code == 0 and "not found" not in out and "swift" not in out.lower() and "Foundation" not in out,
          "%s: every shared library found, no Swift runtime among them" % program, out + err)
    libs = sorted(re.findall(r"^\s*(\S+\.so[.\d]*)", out, re.M))
    print("     " + " ".join(libs))
    if program == "amble":
        check(not any("gpiod" in l or "i2c" in l for l in libs), "amble links neither libgpiod nor libi2c", out)

code, out, _ = run("/usr/bin/id", "amble")
check(code == 0 and all(g in out for g in ("(i2c)", "(gpio)", "(dialout)")), "user amble exists, in i2c, gpio and dialout", out)
st = os.stat(os.path.join(ROOT, "var/lib/ambled"))
check((st.st_mode & 0o777) == 0o700, "/var/lib/ambled is 0700")
for path in ("lib/systemd/system/ambled.service", "lib/udev/rules.d/99-amble.rules", "etc/amble/board.toml",
             "usr/share/amble/boards/rpi-zero2w.toml", "usr/share/man/man1/amble.1.gz", "usr/share/man/man1/ambled.1.gz",
             "usr/share/bash-completion/completions/amble", "usr/share/zsh/vendor-completions/_amble",
             "usr/share/fish/vendor_completions.d/amble.fish", "usr/share/doc/amble/copyright"):
    check(os.path.exists(os.path.join(ROOT, path)), "/" + path + " installed")

# --- The band and the laptop ----------------------------------------------------------------
log = os.path.join(ROOT, "tmp", "band.log")
started = time.time()
band = Band(PAIR_SCRIPT, 1, log)
if not check(band.address is not None, "ambled starts as user amble on the simulated board and listens", tail(log)):
    band.stop()
    sys.exit(1)
code, out, err = amble("sync", "--tcp", band.address, "--timeout", "10")
# A laptop that never paired has no store yet; either refusal names pairing, and neither crashes.
check(code == 1 and ("not paired" in out + err or "pair a band first" in out + err) and "Fatal error" not in out + err,
      "amble sync before pairing fails cleanly, saying to pair (%s)" % (out + err).strip().splitlines()[-1:],
      "status %d: %s%s" % (code, out, err))

paired = False
if check(band.wait(r"screen: PAIR LAPTOP", 30) is not None, "the scripted wearer opens pairing mode", tail(log)):
    def band_code():
        m = band.wait(r"CODE ([0-9]{3} [0-9]{3})", 5)
        return m.group(1) if m else None
    status, out, same = pair_comparing_codes(["chroot", ROOT] + ENV + ["HOME=/root", "/usr/bin/amble", "--store", STORE, "pair", "--tcp",
                                              band.address, "--name", "check-package"], band_code)
    paired = check(same and status == 0, "amble pair: the same code on both sides, paired", out)
check(band.stop() == 0, "ambled stops cleanly at SIGTERM", tail(log))

if paired:
    band = Band(WALK_SCRIPT, 50, log)
    stored = band.address is not None and band.wait(r"(?s)session \d+ stored.*session \d+ stored", 120) is not None
    check(stored, "a calibration and a mindful walk recorded and stored", tail(log))
    code, out, err = amble("sync", "--tcp", band.address, "--timeout", "30")
    check(code == 0, "amble sync pulls them", out + err)
    code, out, err = amble("sessions", "list", "--json")
    kinds = re.findall(r'"kind"\s*:\s*"([a-z-]+)"', out)
    check(code == 0 and sorted(kinds) == ["calibration", "mindful-walk"], "amble sessions list shows both (%s)" % ", ".join(kinds), out + err)
    check(band.stop() == 0, "ambled stops cleanly at SIGTERM after the sync", tail(log))
print("     the band's part took %.0f s" % (time.time() - started))
sys.exit(1 if failures else 0)
