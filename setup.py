"""Builds the optional C extension; everything else about the package is in pyproject.toml.

``scorecard.fast._fastscore`` is the scoring hot path in C (sources in ``src/fastscore/``, design in
docs/performance.md). It is optional: where it cannot be compiled, every record takes the Python
path, which gives the same output.
"""

from pathlib import Path

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "scorecard.fast._fastscore",
            sources=sorted(str(path) for path in Path("src/fastscore").glob("*.c")),
            depends=["src/fastscore/fastscore.h"],
            extra_compile_args=["-O2", "-fvisibility=hidden"],
            optional=True,
        )
    ]
)
