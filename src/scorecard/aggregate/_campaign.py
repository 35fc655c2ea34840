"""Two bundles of a campaign made comparable: the analysis in which one is judged against the other.

:meth:`CampaignAnalysis.comparison` compares consecutive bundles only (each pair of consecutive
bundles is one multiplicity family). ``scorecard compare --baseline`` may name any bundle, so
:func:`pair_analysis` gives the analysis whose consecutive pair is (baseline, current): the
campaign's own when the baseline is the bundle just before, else the analysis of those two
bundles' rows alone, with the same settings (so its family is exactly that pair's).
"""

from __future__ import annotations

import numpy as np

from scorecard.contract import InputError

from ._analysis import CampaignAnalysis, analyze_campaign

__all__ = ["pair_analysis"]


def pair_analysis(analysis: CampaignAnalysis, baseline: str, current: str) -> CampaignAnalysis:
    """The analysis in which ``current`` follows ``baseline`` (``analysis`` itself when it
    already does). Unknown bundles and a bundle compared with itself are :class:`InputError`."""
    for bundle in (baseline, current):
        if bundle not in analysis.bundles:
            raise InputError(
                f"no bundle {bundle!r} in the records (found: {', '.join(analysis.bundles)})",
                rule="unknown_bundle",
            )
    if baseline == current:
        raise InputError(f"bundle {current!r} cannot be compared with itself", rule="no_pair")
    if analysis.previous_bundle(current) == baseline:
        return analysis
    frame = analysis.frame
    rows = frame.loc[frame["bundle"].isin([baseline, current]).to_numpy()].copy()
    rows["bundle"] = rows["bundle"].cat.set_categories([baseline, current])
    order = np.argsort(rows["bundle"].cat.codes.to_numpy(), kind="stable")
    return analyze_campaign(rows.iloc[order].reset_index(drop=True), analysis.settings)
