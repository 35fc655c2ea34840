"""A ``scorecard view`` process for the tests that serve a site over HTTP: started, its address
read from the line it prints, and killed if a test leaves it running."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import urllib.request
from collections.abc import Iterator, Mapping
from typing import Any

from tests.conftest import ROOT

SERVING = "serving the report at http://127.0.0.1:"


@contextlib.contextmanager
def running_view(*arguments: str, **popen: Any) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """``python -m scorecard view ARGUMENTS`` (run from the checkout; ``popen`` adds to how it
    is started, e.g. ``stderr``, ``env``) and the address it serves at, once it says so."""
    popen.setdefault("cwd", ROOT)
    with subprocess.Popen(
        [sys.executable, "-m", "scorecard", "view", *arguments],
        stdout=subprocess.PIPE,
        text=True,
        **popen,
    ) as server:
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            assert line.startswith(SERVING), line
            yield server, line.split()[4]
        finally:
            if server.poll() is None:
                server.kill()
                server.wait()


def assert_serves_every_file(address: str, built: Mapping[str, bytes]) -> None:
    """Every file of ``built`` (a site's files, by name) is served at ``address`` byte for byte,
    all but the marker file, which is never served."""
    served = 0
    for name, data in built.items():
        if name.startswith("."):
            continue
        with urllib.request.urlopen(address + name, timeout=60) as answer:
            assert answer.read() == data, name
        served += 1
    assert served == len(built) - 1
