"""Regenerate the committed sample bundles under ``observations/`` (seeded, byte-stable).

Usage: ``python dev/generate_samples.py`` from anywhere. Only the bundle folders the generator
owns (``YYYY-MM-DD-nightly``) are removed first; anything else under ``observations/`` stays.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from scorecard.simulate.campaign import is_sample_folder, simulate_campaign

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = Path("observations")


def main() -> None:
    """Replace the sample bundle folders with freshly generated ones."""
    output = ROOT / SAMPLES
    if output.is_dir():
        for folder in sorted(output.iterdir()):
            if is_sample_folder(folder):
                shutil.rmtree(folder)
    for folder in simulate_campaign(output):
        print(folder.relative_to(ROOT))


if __name__ == "__main__":
    main()
