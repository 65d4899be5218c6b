"""A venv with pinned PyPI libraries (Jinja2, MarkupSafe, PyYAML, requests and its dependencies) for tests of library
code: made once under build/, reused while it still imports those versions; under CI=true a failed install fails the
tests that need it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .core import ROOT, missing_target

PINNED = {
    "Jinja2": "3.1.4",
    "MarkupSafe": "2.1.5",
    "PyYAML": "6.0.2",
    "requests": "2.32.3",
    "urllib3": "2.2.3",
    "idna": "3.10",
    "charset-normalizer": "3.4.0",
    "certifi": "2024.8.30",
}
VENV = ROOT / "build" / "venv-jinja2-pyyaml"  # the name golden files show (its libraries grew since)
CHECK = (
    "import jinja2, markupsafe, yaml, requests, urllib3, idna, charset_normalizer, certifi; print(jinja2.__version__, "
    "markupsafe.__version__, yaml.__version__, requests.__version__, urllib3.__version__, idna.__version__, "
    "charset_normalizer.__version__, certifi.__version__)"
)


def library_python() -> str:
    """The venv's python, installed if need be (skips, or fails under CI, when it cannot be)."""
    python = VENV / "bin" / "python"
    want = " ".join(PINNED.values())
    if python.exists():
        found = subprocess.run([str(python), "-c", CHECK], capture_output=True, text=True)
        if found.returncode == 0 and found.stdout.strip() == want:
            return str(python)
    try:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True, capture_output=True)
        pins = [f"{name}=={version}" for name, version in PINNED.items()]
        subprocess.run([str(python), "-m", "pip", "install", "-q", *pins], check=True, capture_output=True, timeout=300)
        subprocess.run([str(python), "-c", CHECK], check=True, capture_output=True)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
        detail = (getattr(exc, "stderr", b"") or b"").decode(errors="replace")[-500:]
        missing_target(f"could not install {', '.join(PINNED)} into {VENV}: {exc} {detail}")
    return str(python)


def site_file(python: str, module: str) -> str:
    """The source file of `module` in that venv."""
    found = subprocess.run(
        [python, "-c", f"import {module}; print({module}.__file__)"], check=True, capture_output=True, text=True
    )
    return str(Path(found.stdout.strip()))
