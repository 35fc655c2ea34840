/* The scorecard line of one recognised observation (lines.py), and what it adds to the run
   counts. */

#include "fastscore.h"

/* The dimensions in canonical order, the order of the policy plan. */
enum {
    HARD_INVARIANTS,
    LIFECYCLE_INTEGRITY,
    SEMANTIC_OUTCOME,
    TRAJECTORY_RESTRAINT,
    TRACE_COMPLETENESS,
    QUALITY_EFFICIENCY,
    CONTINUATION_INTEGRITY,
    PRESENTATION_FIDELITY
};

/* The policy plan (fastpath.policy_plan): per dimension, in canonical order, a tuple
   (head, gate, weight, weight_text, threshold, unscoreable_text): `head` is
   `"name":{"dimension":"name","score":`, `unscoreable_text` the whole entry of an unscoreable
   run. */
static int
append_dimension(Buffer *out, PyObject *entry, const Result *result, int passed)
{
    int gate = PyTuple_GET_ITEM(entry, 1) == Py_True;
    if (append_str(out, PyTuple_GET_ITEM(entry, 0)) < 0 || append_double(out, result->score) < 0 ||
        (passed ? APPEND_LITERAL(out, ",\"passed\":true,\"gate\":")
                : APPEND_LITERAL(out, ",\"passed\":false,\"gate\":")) < 0 ||
        (gate ? APPEND_LITERAL(out, "true,\"weight\":") : APPEND_LITERAL(out, "false,\"weight\":")) <
            0 ||
        append_str(out, PyTuple_GET_ITEM(entry, 3)) < 0 || APPEND_LITERAL(out, ",\"reasons\":[") < 0) {
        return -1;
    }
    for (Py_ssize_t index = 0; index < PyList_GET_SIZE(result->reasons); index++) {
        if ((index && APPEND_LITERAL(out, ",") < 0) ||
            append_cached(out, reason_cache, reason_json, PyList_GET_ITEM(result->reasons, index)) <
                0) {
            return -1;
        }
    }
    return APPEND_LITERAL(out, "]}");
}

int
score_record(Buffer *out, PyObject *observation, PyObject *plan, PyObject *policy,
             PyObject *head, Counts *counts, Card *card, int audited)
{
    Result results[DIMENSION_COUNT];
    for (int index = 0; index < DIMENSION_COUNT; index++) {
        results[index].score = 0.0;
        results[index].reasons = NULL;
    }
    int status = 0;
    PyObject *classification = field(observation, s_classification);
    PyObject *candidate = field(observation, s_candidateId);
    if (classification == NULL || !PyUnicode_CheckExact(classification) || candidate == NULL ||
        checks_valid(field(observation, s_lifecycle)) < 0 ||
        checks_valid(field(observation, s_continuation)) < 0 ||
        checks_valid(field(observation, s_presentation)) < 0) {
        goto done;
    }
    int unscoreable = is_text(classification, "infrastructure_failure") ||
                      is_text(classification, "skipped");
    int audit = 0, gate_passed = 1, all_passed = 1;
    /* `{"schema":...,"bundleId":...,"caseId":...,"candidateId":`: made by the caller. */
    if (append_str(out, head) < 0 || append_cached(out, string_cache, string_json, candidate) < 0 ||
        APPEND_LITERAL(out, ",\"classification\":\"") < 0 || append_str(out, classification) < 0 ||
        APPEND_LITERAL(out, "\",\"dimensions\":{") < 0) {
        goto done;
    }
    if (unscoreable) {
        for (int index = 0; index < DIMENSION_COUNT; index++) {
            PyObject *entry = PyTuple_GET_ITEM(policy, index);
            if ((index && APPEND_LITERAL(out, ",") < 0) ||
                append_str(out, PyTuple_GET_ITEM(entry, 5)) < 0) {
                goto done;
            }
        }
        if (APPEND_LITERAL(out, "},\"overall\":{\"score\":null,\"gatePassed\":null,"
                                "\"passed\":null}}\n") < 0) {
            goto done;
        }
    }
    else {
        for (int index = 0; index < DIMENSION_COUNT; index++) {
            results[index].reasons = PyList_New(0);
            if (results[index].reasons == NULL) {
                goto done;
            }
        }
        PyObject *base = field(observation, s_base);
        if (base == NULL || hard_invariants(base, &results[HARD_INVARIANTS]) < 0 ||
            semantic_outcome(base, &results[SEMANTIC_OUTCOME]) < 0 ||
            trajectory_restraint(base, &results[TRAJECTORY_RESTRAINT]) < 0 ||
            trace_completeness_v1(base, &results[TRACE_COMPLETENESS]) < 0 ||
            quality_efficiency(base, &results[QUALITY_EFFICIENCY]) < 0 ||
            score_checks(field(observation, s_lifecycle), &results[LIFECYCLE_INTEGRITY]) < 0 ||
            score_checks(field(observation, s_continuation), &results[CONTINUATION_INTEGRITY]) <
                0 ||
            score_checks(field(observation, s_presentation), &results[PRESENTATION_FIDELITY]) <
                0) {
            goto done;
        }
        if (is_text(classification, "candidate_failure")) {
            results[LIFECYCLE_INTEGRITY].score = 0.0;
            if (add_reason(results[LIFECYCLE_INTEGRITY].reasons,
                           PyUnicode_FromString("candidate execution failed")) < 0) {
                goto done;
            }
        }
        TraceExpectation expectation = {
            PyTuple_GET_ITEM(plan, PLAN_TRACE_PRESENT) == Py_True,
            PyUnicode_AsUTF8(PyTuple_GET_ITEM(plan, PLAN_CAPTURE)),
            PyTuple_GET_ITEM(plan, PLAN_DISPOSITIONS),
            PyTuple_GET_ITEM(plan, PLAN_LINEAGE),
        };
        Result lineage = {0.0, PyList_New(0)};
        if (expectation.capture == NULL || lineage.reasons == NULL ||
            trace_lineage(field(observation, s_traceLineage), &expectation, &lineage) < 0) {
            Py_XDECREF(lineage.reasons);
            goto done;
        }
        Result *trace = &results[TRACE_COMPLETENESS];
        if (lineage.score < trace->score) {
            trace->score = lineage.score;
        }
        Py_ssize_t end = PyList_GET_SIZE(trace->reasons);
        int joined = PyList_SetSlice(trace->reasons, end, end, lineage.reasons);
        Py_DECREF(lineage.reasons);
        if (joined < 0) {
            goto done;
        }
        double weighted_sum = 0.0, weight_total = 0.0;
        for (int index = 0; index < DIMENSION_COUNT; index++) {
            PyObject *entry = PyTuple_GET_ITEM(policy, index);
            int gate = PyTuple_GET_ITEM(entry, 1) == Py_True;
            double score = results[index].score;
            if (!gate) {
                double weight = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(entry, 2));
                weighted_sum += score * weight;
                weight_total += weight;
            }
            int passed = score >= PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(entry, 4));
            card->scores[index] = score;
            card->dimension_passed[index] = passed;
            all_passed = all_passed && passed;
            if (gate) {
                gate_passed = gate_passed && passed;
            }
            if ((index && APPEND_LITERAL(out, ",") < 0) ||
                append_dimension(out, entry, &results[index], passed) < 0) {
                goto done;
            }
        }
        double overall = (!gate_passed || weight_total == 0.0) ? 0.0 : weighted_sum / weight_total;
        card->overall = overall;
        if (APPEND_LITERAL(out, "},\"overall\":{\"score\":") < 0 ||
            append_double(out, overall) < 0 ||
            (gate_passed ? APPEND_LITERAL(out, ",\"gatePassed\":true,\"passed\":")
                         : APPEND_LITERAL(out, ",\"gatePassed\":false,\"passed\":")) < 0 ||
            ((gate_passed && all_passed) ? APPEND_LITERAL(out, "true}}\n")
                                         : APPEND_LITERAL(out, "false}}\n")) < 0) {
            goto done;
        }
        audit = audited ? audit_failed(observation, plan) : 0;
        if (audit < 0) {
            goto done;
        }
    }
    if (!PyErr_Occurred()) {
        card->unscoreable = unscoreable;
        card->gate_passed = gate_passed;
        card->passed = gate_passed && all_passed;
        card->audit = audit;
        counts->scored++;
        counts->unscoreable += unscoreable;
        counts->gate_failures += !unscoreable && !gate_passed;
        counts->audit_failed += audit;
        status = 1;
    }
done:
    for (int index = 0; index < DIMENSION_COUNT; index++) {
        Py_XDECREF(results[index].reasons);
    }
    return status != 1 && PyErr_Occurred() ? -1 : status;
}
