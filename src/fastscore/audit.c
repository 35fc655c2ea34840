/* The audit, reduced to what a jsonl run needs: how many findings failed (audit.py). */

#include "fastscore.h"

/* The failed findings of one `_equal` (fails_when Py_NE) or `_at_most` (Py_GT) assertion: 1
   when the case asserts it, the observation has the evidence, and `actual fails_when declared`
   holds. */
static int
failed_check(PyObject *declared, PyObject *actual, int fails_when)
{
    if (declared == Py_None || actual == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    return PyObject_RichCompareBool(actual, declared, fails_when);
}

/* Required items (tuple) missing from observed (list, or NULL: not observed). */
static int
failed_members(PyObject *required, PyObject *observed)
{
    if (observed == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    int failed = 0;
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(required); index++) {
        int found = PySequence_Contains(observed, PyTuple_GET_ITEM(required, index));
        if (found < 0) {
            return -1;
        }
        failed += !found;
    }
    return failed;
}

/* 1 when the required markers are not an ordered subsequence of those shown. */
static int
failed_markers(PyObject *required, PyObject *shown)
{
    if (PyTuple_GET_SIZE(required) == 0 || shown == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    if (!is_list(shown)) {
        return -1;
    }
    Py_ssize_t position = 0, length = PyList_GET_SIZE(shown);
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(required); index++) {
        PyObject *marker = PyTuple_GET_ITEM(required, index);
        for (;;) {
            if (position >= length) {
                return 1;
            }
            int same = PyObject_RichCompareBool(PyList_GET_ITEM(shown, position++), marker, Py_EQ);
            if (same < 0) {
                return -1;
            }
            if (same) {
                break;
            }
        }
    }
    return 0;
}

/* Every occurrence of a forbidden event type is a failed finding. */
static int
failed_forbidden(PyObject *forbidden, PyObject *observed)
{
    int failed = 0;
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(forbidden); index++) {
        Py_ssize_t count = PySequence_Count(observed, PyTuple_GET_ITEM(forbidden, index));
        if (count < 0) {
            return -1;
        }
        failed += (int)count;
    }
    return failed;
}

int
audit_failed(PyObject *observation, PyObject *plan)
{
#define P(index) PyTuple_GET_ITEM(plan, index)
    PyObject *lifecycle = field(observation, s_lifecycle);
    PyObject *presentation = field(observation, s_presentation);
    PyObject *lineage = field(observation, s_traceLineage);
    PyObject *metrics = field(observation, s_metrics);
    PyObject *events = field(observation, s_observedPrpEventTypes);
    PyObject *digests = field(observation, s_artifactDigests);
    PyObject *base = field(observation, s_base);
    PyObject *provider = field(observation, s_provider);
    if (lifecycle == NULL || presentation == NULL || lineage == NULL || metrics == NULL ||
        !is_list(events) || !is_list(digests) || base == NULL || provider == NULL) {
        return -1;
    }
    PyObject *calls = field(base, s_observedCalls);
    PyObject *attempts = field(lifecycle, s_attempts);
    if (attempts == NULL && !PyErr_Occurred()) {
        attempts = field(metrics, s_attempts);
    }
    if (!is_list(calls) || PyErr_Occurred()) {
        return -1;
    }
    int parts[] = {
        failed_check(P(PLAN_ISSUE_STATUS), field(lifecycle, s_issueStatus), Py_NE),
        failed_check(P(PLAN_RUN_STATUS), field(lifecycle, s_runStatus), Py_NE),
        failed_check(P(PLAN_SEMANTIC_DISPOSITION), field(lifecycle, s_semanticDisposition), Py_NE),
        failed_check(P(PLAN_MAX_ATTEMPTS), attempts, Py_GT),
        failed_check(P(PLAN_MAX_RUNS), field(lifecycle, s_runs), Py_GT),
        failed_check(P(PLAN_RECOVERY_OWNER), field(lifecycle, s_recoveryOwner), Py_NE),
        failed_check(P(PLAN_COMMENT_COUNT), field(presentation, s_commentCount), Py_NE),
        failed_check(P(PLAN_RESPONSE_SOURCE), field(presentation, s_responseSource), Py_NE),
        failed_markers(P(PLAN_ORDERED_MARKERS), field(presentation, s_markers)),
        failed_members(P(PLAN_REQUIRED_EVENTS), events),
        failed_forbidden(P(PLAN_FORBIDDEN_EVENTS), events),
        failed_members(P(PLAN_ACTIVITY_FAMILIES), field(presentation, s_activityFamilies)),
        failed_members(P(PLAN_ARTIFACT_DIGESTS), digests),
        failed_members(P(PLAN_OPERATION_IDS), calls),
        failed_check(P(PLAN_DIGEST_VERIFIED), field(lineage, s_digestVerified), Py_NE),
        failed_check(P(PLAN_ORDERED), field(lineage, s_ordered), Py_NE),
    };
    int failed = 0;
    for (size_t index = 0; index < sizeof(parts) / sizeof(parts[0]); index++) {
        if (parts[index] < 0) {
            return -1;
        }
        failed += parts[index];
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    int member = PySequence_Contains(P(PLAN_PROVIDERS), provider);
    return member < 0 ? -1 : failed + !member;
#undef P
}
