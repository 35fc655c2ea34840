/* Trace completeness (from wire events, or the flat trace fields) and trace lineage
   (scoring.py). */

#include "fastscore.h"

/* One trace check: passed or not, and the reason label. */
static int
trace_check(Result *result, int *passed, int *total, int ok, const char *label)
{
    (*total)++;
    if (ok) {
        (*passed)++;
        return 0;
    }
    return add_reason(result->reasons, PyUnicode_FromFormat("trace missing %s", label));
}

/* The semantic tool receipt of a tool-result event, borrowed, or NULL. */
static PyObject *
semantic_tool(PyObject *event)
{
    if (!is_text(field(event, s_eventType), "mcp_app.tool_result")) {
        return NULL;
    }
    PyObject *payload = field(event, s_payload);
    if (payload == NULL) {
        return NULL;
    }
    PyObject *tool = item(payload, k_semantic_tool);
    if (tool != NULL && PyDict_CheckExact(tool) &&
        is_text(item(tool, k_schema), "paperclip.prp.semantic_tool.v1") &&
        is_one(item(tool, k_schemaVersion)) && is_text(item(tool, k_phase), "result")) {
        return tool;
    }
    return NULL;
}

static int
wire_trace(PyObject *events, PyObject *calls, Result *result, int *passed, int *total)
{
    Py_ssize_t count = PyList_GET_SIZE(events), n_calls = PyList_GET_SIZE(calls);
    Py_ssize_t receipts = 0, receipt_ids = 0, first_terminal = -1, anchor = -1, first_turn = -1;
    int match = 1;
    for (Py_ssize_t index = 0; index < count; index++) {
        PyObject *event = PyList_GET_ITEM(events, index);
        PyObject *type = field(event, s_eventType);
        if (type == NULL) {
            return -1;
        }
        PyObject *tool = semantic_tool(event);
        if (PyErr_Occurred()) {
            return -1;
        }
        if (tool != NULL) {
            PyObject *receipt = item(tool, k_operationReceiptId);
            int has_receipt = is_nonempty_text(receipt);
            receipt_ids += has_receipt;
            if (receipts < n_calls) {
                PyObject *operation = item(tool, k_operationId);
                PyObject *call = PyList_GET_ITEM(calls, receipts);
                if (!(operation != NULL && PyUnicode_CheckExact(operation) &&
                      PyUnicode_Compare(operation, call) == 0 && has_receipt)) {
                    match = 0;
                }
            }
            receipts++;
        }
        if (anchor < 0 && is_text(type, "mcp_app.tool_result")) {
            anchor = index;
        }
        if (first_turn < 0 && is_nonempty_text(field(event, s_turnId))) {
            first_turn = index;
        }
        if (first_terminal < 0 && is_text(type, "run.terminal")) {
            first_terminal = index;
        }
    }
    if (PyErr_Occurred()) {
        return -1;
    }
    if (anchor < 0) {
        anchor = first_turn;
    }
    match = match && receipts == n_calls;
    PyObject *run_id = count ? field(PyList_GET_ITEM(events, 0), s_runId) : NULL;
    PyObject *at = anchor >= 0 ? PyList_GET_ITEM(events, anchor) : NULL;
    if (trace_check(result, passed, total, is_nonempty_text(run_id), "runId") < 0 ||
        trace_check(result, passed, total,
                    at != NULL && is_nonempty_text(field(at, s_normalizedSessionId)),
                    "sessionId") < 0 ||
        trace_check(result, passed, total, at != NULL && is_nonempty_text(field(at, s_turnId)),
                    "turnId") < 0 ||
        trace_check(result, passed, total, at != NULL && is_nonempty_text(field(at, s_itemId)),
                    "itemId") < 0 ||
        trace_check(result, passed, total, first_terminal >= 0, "terminal") < 0 ||
        trace_check(result, passed, total, receipt_ids >= n_calls && match,
                    "receipt-per-call") < 0) {
        return -1;
    }
    if (first_terminal < 0) {
        return 0;
    }
    PyObject *payload = field(PyList_GET_ITEM(events, first_terminal), s_payload);
    /* `payload.get(...) if payload else None`: an empty payload holds no stop reason. */
    PyObject *stop = payload != NULL && PyDict_GET_SIZE(payload) ? item(payload, k_stopReason)
                                                                   : NULL;
    if (stop == NULL || !PyDict_CheckExact(stop)) {
        return PyErr_Occurred() ? -1 : 0;
    }
    int ok = is_text(item(stop, k_schema), "paperclip.prp.stop_reason.v1") &&
             is_one(item(stop, k_schemaVersion)) && is_nonempty_text(item(stop, k_receiptId)) &&
             is_nonempty_text(item(stop, k_decisionId));
    return trace_check(result, passed, total, ok, "stop-reason-receipt");
}

static int
flat_trace(PyObject *trace, PyObject *calls, Result *result, int *passed, int *total)
{
    PyObject *receipt_ids = field(trace, s_receiptIds);
    PyObject *terminal = field(trace, s_terminalPresent);
    if (!is_list(receipt_ids) || terminal == NULL) {
        return -1;
    }
    int receipts_ok = PyList_GET_SIZE(receipt_ids) >= PyList_GET_SIZE(calls);
    for (Py_ssize_t index = 0; receipts_ok && index < PyList_GET_SIZE(receipt_ids); index++) {
        PyObject *receipt = PyList_GET_ITEM(receipt_ids, index);
        if (PyUnicode_CheckExact(receipt) && PyUnicode_GET_LENGTH(receipt) == 0) {
            receipts_ok = 0;
        }
    }
    if (trace_check(result, passed, total, is_nonempty_text(field(trace, s_runId)), "runId") <
            0 ||
        trace_check(result, passed, total, is_nonempty_text(field(trace, s_sessionId)),
                    "sessionId") < 0 ||
        trace_check(result, passed, total, is_nonempty_text(field(trace, s_turnId)), "turnId") <
            0 ||
        trace_check(result, passed, total, is_nonempty_text(field(trace, s_itemId)), "itemId") <
            0 ||
        trace_check(result, passed, total, terminal == Py_True, "terminal") < 0 ||
        trace_check(result, passed, total, receipts_ok, "receipt-per-call") < 0) {
        return -1;
    }
    return PyErr_Occurred() ? -1 : 0;
}

int
trace_completeness_v1(PyObject *base, Result *result)
{
    PyObject *trace = field(base, s_trace), *calls = field(base, s_observedCalls);
    if (trace == NULL || !is_list(calls)) {
        return -1;
    }
    PyObject *events = field(trace, s_wireEvents);
    int passed = 0, total = 0;
    int status = events != NULL ? (is_list(events) ? wire_trace(events, calls, result, &passed,
                                                                 &total)
                                                   : -1)
                                : flat_trace(trace, calls, result, &passed, &total);
    result->score = total ? (double)passed / (double)total : 0.0;
    return status;
}


static int
lineage_check(Result *result, int *passed, int *total, int ok, PyObject *text)
{
    (*total)++;
    if (ok) {
        (*passed)++;
        Py_XDECREF(text);
        return text == NULL ? -1 : 0;
    }
    return add_reason(result->reasons, text);
}

/* One lineage check per item of `expected` (a tuple of str): whether `seen` (a list) holds it;
   `format` names a missing one (%U). */
static int
expected_items(Result *result, int *passed, int *total, PyObject *expected, PyObject *seen,
               const char *format)
{
    for (Py_ssize_t index = 0; index < PyTuple_GET_SIZE(expected); index++) {
        PyObject *wanted = PyTuple_GET_ITEM(expected, index);
        int found = PySequence_Contains(seen, wanted);
        if (found < 0 ||
            lineage_check(result, passed, total, found, PyUnicode_FromFormat(format, wanted)) < 0) {
            return -1;
        }
    }
    return 0;
}

int
trace_lineage(PyObject *lineage, const TraceExpectation *expectation, Result *result)
{
    if (lineage == NULL) {
        return -1;
    }
    PyObject *capture = field(lineage, s_capture), *frames = field(lineage, s_frameCount),
             *bytes = field(lineage, s_byteCount), *digest = field(lineage, s_digestVerified),
             *ordered = field(lineage, s_ordered);
    if (capture == NULL || frames == NULL || bytes == NULL || digest == NULL || ordered == NULL ||
        !PyLong_CheckExact(frames) || !PyLong_CheckExact(bytes)) {
        return -1;
    }
    int passed = 0, total = 0, status = 0;
    int no_frames = _PyLong_Sign(frames) == 0, no_bytes = _PyLong_Sign(bytes) == 0;
    if (strcmp(expectation->capture, "off") == 0) {
        PyObject *reference = field(lineage, s_traceRef);
        if (PyErr_Occurred()) {
            return -1;
        }
        int isolated = is_text(capture, "off") && no_frames && no_bytes &&
                       !(reference != NULL && PyObject_IsTrue(reference));
        status = lineage_check(
            result, &passed, &total, isolated,
            PyUnicode_FromString("capture-off execution retained provider trace data"));
    }
    else if (strcmp(expectation->capture, "on") == 0 || is_text(capture, "on")) {
        int present = is_text(capture, "on") && !no_frames && !no_bytes;
        status = lineage_check(result, &passed, &total, present,
                               PyUnicode_FromString("provider trace capture is empty"));
        if (status == 0) {
            status = lineage_check(
                result, &passed, &total, digest == Py_True,
                PyUnicode_FromString("provider trace frame digest or byte length did not verify"));
        }
        if (status == 0) {
            status = lineage_check(
                result, &passed, &total, ordered == Py_True,
                PyUnicode_FromString(
                    "provider trace frame or debug sequence is not strictly ordered"));
        }
    }
    else {
        passed++;
        total++;
    }
    if (status == 0 && expectation->present) {
        PyObject *exercised = field(lineage, s_dispositions), *shapes = field(lineage, s_lineage);
        if (!is_list(exercised) || !is_list(shapes)) {
            return -1;
        }
        status = expected_items(result, &passed, &total, expectation->dispositions, exercised,
                                "provider trace did not exercise %U mapping");
        if (status == 0) {
            status = expected_items(result, &passed, &total, expectation->lineage, shapes,
                                    "provider trace did not exercise %U lineage");
        }
    }
    result->score = (double)passed / (double)total;
    return status;
}
