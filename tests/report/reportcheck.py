"""Shared by the report tests: what they need, and skipping when it is missing."""
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GENERATOR_DIR = os.path.join(REPO, "scripts", "report")
SKIP = 77


def require(what, present, install):
    """Skip (exit 77, ctest shows it as skipped) when `what` is missing, unless CI is set: CI
    installs everything (scripts/bootstrap.sh), so there a missing tool is a failure."""
    if present:
        return
    msg = f"{what} is missing ({install}; scripts/bootstrap.sh installs it)"
    if os.environ.get("CI"):
        print(f"FAIL: {msg}, and CI is set")
        sys.exit(1)
    print(f"SKIPPED: {msg}")
    sys.exit(SKIP)


def require_matplotlib():
    try:
        import matplotlib  # noqa: F401
        present = True
    except ImportError:
        present = False
    require("matplotlib for /usr/bin/python3", present, "apt-get install python3-matplotlib")


def find_chromium():
    """Chromium's path, or None. STRATA_CHROMIUM names another binary ("" = none: shows what a
    machine without it does)."""
    if "STRATA_CHROMIUM" in os.environ:
        path = os.environ["STRATA_CHROMIUM"]
        return path if path and shutil.which(path) else None
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None
