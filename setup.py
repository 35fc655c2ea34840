"""Builds the optional C extension and ships the case catalog; everything else about the package
is in pyproject.toml.

``scorecard.fast._fastscore`` is the scoring hot path in C (sources in ``src/fastscore/``, design in
docs/performance.md). It is optional: where it cannot be compiled, every record takes the Python
path, which gives the same output.

The case catalog stays where people edit it, ``cases/`` at the top of the repository (the one
copy in git). A built package carries it as package data, ``scorecard/cases/``, copied there
by ``build_py``, so that an installed wheel scores without a checkout
(``scorecard.contract.default_cases_dir``). An editable install reads the checkout's
``cases/`` in place instead, so nothing is copied for it.

The C code's field names come from ``src/fastscore/fields.h``, generated from the observation
models (``src/scorecard/contract/_observation.py``) by ``dev/generate_contract.py``. Making it
needs pydantic, which a build does not have, so the header records the models' file's SHA-256
and the build stops when that file has changed since (docs/architecture.md).
"""

import hashlib
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
CASE_SUFFIXES = (".yaml", ".yml", ".json")  # as scorecard.contract._catalog reads them
MODELS = HERE / "src" / "scorecard" / "contract" / "_observation.py"
FIELDS = HERE / "src" / "fastscore" / "fields.h"
DIGEST_LINE = "   source SHA-256: "  # as dev/generate_contract.py writes it


def check_generated_fields() -> None:
    """Stop the build when fields.h was not generated from the models as they are now."""
    if not FIELDS.exists():
        raise SystemExit(
            f"{FIELDS.relative_to(HERE)} is missing: run python dev/generate_contract.py"
        )
    digest = hashlib.sha256(MODELS.read_bytes()).hexdigest()
    recorded = [
        line.removeprefix(DIGEST_LINE).split()[0]
        for line in FIELDS.read_text(encoding="utf-8").splitlines()
        if line.startswith(DIGEST_LINE)
    ]
    if recorded != [digest]:
        raise SystemExit(
            f"{FIELDS.relative_to(HERE)} was generated from another version of "
            f"{MODELS.relative_to(HERE)}: run python dev/generate_contract.py"
        )


class build_py_with_cases(build_py):
    """``build_py`` that also copies ``cases/`` into the built package as ``scorecard/cases``."""

    def _case_files(self) -> list[tuple[Path, Path]]:
        target = Path(self.build_lib, "scorecard", "cases")
        return [
            (case, target / case.name)
            for case in sorted(CASES.iterdir())
            if case.suffix in CASE_SUFFIXES and case.is_file()
        ]

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # the checkout's cases/ is read where it is
        files = self._case_files()
        if not files:
            raise RuntimeError(f"no case files in {CASES}: the package would have no catalog")
        files[0][1].parent.mkdir(parents=True, exist_ok=True)
        for source, target in files:
            self.copy_file(str(source), str(target), preserve_mode=False)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs: list[str] = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outputs
        return outputs + [str(target) for _, target in self._case_files()]


check_generated_fields()
setup(
    cmdclass={"build_py": build_py_with_cases},
    ext_modules=[
        Extension(
            "scorecard.fast._fastscore",
            sources=sorted(str(path) for path in Path("src/fastscore").glob("*.c")),
            depends=["src/fastscore/fastscore.h", "src/fastscore/fields.h"],
            extra_compile_args=["-O2", "-fvisibility=hidden"],
            optional=True,
        )
    ],
)
