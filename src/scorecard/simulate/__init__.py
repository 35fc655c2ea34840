"""Seeded generator of realistic sample campaigns: synthetic data for reports, plots and the gate.

:func:`simulate_campaign` writes one bundle folder per campaign night: a ``scorecard.campaign.v1``
manifest (``bundle.json``) and one workflow observation per run (``observations.jsonl``).

How a run is made: each candidate has a latent skill profile (:class:`Skills`). A run first draws
its *plan* from it (classification, flaws per aspect, budget breach, forbidden-call incident),
then writes the *evidence* the plan implies (calls, receipts, usage, statuses, markers, PRP
events), and finally derives every lifecycle, continuation and presentation check from that
evidence, so the checks, the scorer's dimensions and the case-assertion audit always agree.
The newest bundle carries a deliberate regression of :data:`REGRESSED_CANDIDATE`.

Determinism: every draw comes from a ``random.Random`` seeded from SHA-256 of the campaign seed,
the bundle and the candidate; distributions use arithmetic only (no libm, whose last bits differ
between platforms), and nothing reads the clock, ``hash()`` or set iteration order.

Modules, each depending only on those above it:

- ``randomness``: seeds derived from text, and the draws the others share.
- ``roster``: candidates, budgets, latent skills, nightly drift and the planted regression.
- ``cases``: per-case traits and check lists, and the :class:`~.cases.Setting` of one run.
- ``plans``: what goes wrong in a run, drawn before any evidence.
- ``evidence``: calls, usage, PRP events, artifacts and the observation's ``base`` part.
- ``trace``: run identifiers, receipts, PRP wire events and the provider trace lineage.
- ``checks``: statuses and the lifecycle, continuation and presentation checks.
- ``runs``: one run assembled into a workflow observation.
- ``campaign``: the schedule, incidents, bundle manifests and the files written.
"""

from __future__ import annotations

from .campaign import (
    OBSERVATIONS_NAME,
    SAMPLE_FOLDER,
    SimulatedBundle,
    is_sample_folder,
    iter_bundles,
    observation_line,
    simulate_campaign,
)
from .roster import REGRESSED_CANDIDATE, ROSTER, SimulatedCandidate, Skills

__all__ = [
    "OBSERVATIONS_NAME",
    "REGRESSED_CANDIDATE",
    "ROSTER",
    "SAMPLE_FOLDER",
    "SimulatedBundle",
    "SimulatedCandidate",
    "Skills",
    "is_sample_folder",
    "iter_bundles",
    "observation_line",
    "simulate_campaign",
]
