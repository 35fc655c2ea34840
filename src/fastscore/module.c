/* The scoring hot path in C: a block of JSON Lines -> scorecard lines and run counts.

   This is a second implementation of validation.py's contract rules, scoring.py (dimensions),
   audit.py (the count of failed findings) and lines.py (the scorecard line), for the one case
   that dominates every large run: a plainly valid observation scored for the `jsonl` format
   (or as its row, row.c, or its whole scored record, record.c).
   Lines that strict.c finds unambiguous (any key order, whitespace and escapes) are decoded
   into the msgspec structs of recognize.py. A line it is not sure of is handed back, and the
   caller takes the Python path, which stays the definition:
   tests/fast/test_fastpath.py checks both give the same bytes and counts on the conformance table,
   the sample bundles and generated and corrupted observations. See docs/performance.md.

   Text that may need redacting or escaping (reasons, ids) is handed to the Python helpers of
   lines.py (their answers cached here); numbers use CPython's shortest repr, respelt as
   JavaScript does. fastscore.h lists the other files. */

#include "fastscore.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* ------------------------------------------------------------------------------------------ */
/* Module state: helpers and constants set once by configure().                               */

PyObject *UNSET, *reason_json, *string_json, *number_text, *comma_space, *reason_cache,
    *string_cache;
#define DEFINE(name) PyObject *s_##name;
NAMES(DEFINE)
#undef DEFINE
PyObject *k_semantic_tool, *k_schema, *k_schemaVersion, *k_phase, *k_operationReceiptId,
    *k_operationId, *k_stopReason, *k_receiptId, *k_decisionId;
SlotEntry slot_cache[SLOT_CACHE_SIZE];

/* ------------------------------------------------------------------------------------------ */
/* Blocks of JSON Lines.                                                                       */

static PyObject *decode;            /* recognize's typed msgspec decoder: .decode */
static PyObject *declinable;        /* exceptions that mean "not plainly valid": a tuple */
static PyObject *identifier_secret; /* validation.identifier_secret */
static PyObject *reference_secret;  /* secrets.matches_reference_secret */
static PyObject *clean_ids;         /* ids identifier_secret found clean */

/* When `error` is one of the exceptions that only mean "not plain", clear it and return 0. */
static int
declined(void)
{
    if (PyErr_ExceptionMatches(declinable)) {
        PyErr_Clear();
        return 0;
    }
    return -1;
}

/* JavaScript's String.prototype.trim() whitespace. */
static int
is_js_space(Py_UCS4 c)
{
    return c == ' ' || (c >= 0x09 && c <= 0x0D) || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
           c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

static int
is_blank(PyObject *text)
{
    for (Py_ssize_t index = 0; index < PyUnicode_GET_LENGTH(text); index++) {
        if (!is_js_space(PyUnicode_READ_CHAR(text, index))) {
            return 0;
        }
    }
    return 1;
}

/* 1 when the id is not secret-shaped (identifier_secret, remembered), 0 when it is, -1 error. */
static int
clean_id(PyObject *id)
{
    int known = PySet_Contains(clean_ids, id);
    if (known != 0) {
        return known;
    }
    PyObject *pattern = PyObject_CallOneArg(identifier_secret, id);
    if (pattern == NULL) {
        return -1;
    }
    int clean = pattern == Py_None;
    Py_DECREF(pattern);
    if (clean) {
        if (PySet_GET_SIZE(clean_ids) >= CACHE_LIMIT && PySet_Clear(clean_ids) < 0) {
            return -1;
        }
        if (PySet_Add(clean_ids, id) < 0) {
            return -1;
        }
    }
    return clean;
}

/* SCORING.md 1.2, 1.3 and 1.5 and the secret-shaped id rule (1.4 is checks_valid): 1 when the
   observation passes, 0 when the Python path must decide, -1 on error. */
static int
passes_contract(PyObject *observation)
{
    PyObject *candidate = field(observation, s_candidateId);
    PyObject *provider = field(observation, s_provider);
    PyObject *classification = field(observation, s_classification);
    if (candidate == NULL || provider == NULL || classification == NULL ||
        !PyUnicode_CheckExact(candidate) || !PyUnicode_CheckExact(provider)) {
        return PyErr_Occurred() ? -1 : 0;
    }
    if (is_blank(candidate)) {
        return 0;
    }
    int clean = clean_id(candidate);
    if (clean == 1) {
        clean = clean_id(provider);
    }
    if (clean != 1) {
        return clean;
    }
    PyObject *failure = field(observation, s_failure);
    if (failure == NULL) {
        if (PyErr_Occurred()) {
            return -1;
        }
        return !(is_text(classification, "infrastructure_failure") ||
                 is_text(classification, "skipped"));
    }
    PyObject *message = field(failure, s_message);
    if (message == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *secret = PyObject_CallOneArg(reference_secret, message);
    if (secret == NULL) {
        return -1;
    }
    int shaped = PyObject_IsTrue(secret);
    Py_DECREF(secret);
    return shaped < 0 ? -1 : !shaped;
}

/* One line: scored into `out` and `card` (1), declined (0), or an error (-1). With `rows`
   (rows mode), `*row` is set to the line's row when it is scored; with `records` (records
   mode), its record line (line `number`) is written into records->out. */
static int
score_raw_line(Buffer *out, Scratch *scratch, const char *start, Py_ssize_t length,
               PyObject *plans, PyObject *policy, PyObject *heads, Counts *counts, Card *card,
               PyObject *rows, PyObject **row, RecordWriter *records, Py_ssize_t number)
{
    /* Read only what the general path would read as msgspec does (strict.c). */
    int unambiguous = unambiguous_json(scratch, start, length);
    if (unambiguous != 1) {
        return unambiguous;
    }
    PyObject *raw = PyMemoryView_FromMemory((char *)start, length, PyBUF_READ);
    if (raw == NULL) {
        return -1;
    }
    PyObject *observation = PyObject_CallOneArg(decode, raw);
    Py_DECREF(raw);
    if (observation == NULL) {
        return declined();
    }
    int status = 0;
    PyObject *case_id = field(observation, s_caseId);
    PyObject *plan = case_id != NULL ? PyDict_GetItemWithError(plans, case_id) : NULL;
    PyObject *head = plan != NULL ? PyDict_GetItemWithError(heads, case_id) : NULL;
    if (head == NULL || !PyUnicode_CheckExact(head) || !PyTuple_CheckExact(plan) ||
        PyTuple_GET_SIZE(plan) != PLAN_SIZE) {
        status = PyErr_Occurred() ? -1 : 0;
        goto done;
    }
    status = passes_contract(observation);
    if (status == 1) {
        Py_ssize_t mark = out->size;
        Counts before = *counts;
        status = score_record(out, observation, plan, policy, head, counts, card, records == NULL);
        if (status == 1 && records != NULL) {
            status = write_record(records, observation, case_id, card, out->data + mark,
                                  out->size - mark - 1, number);
            counts->audit_failed += status == 1 ? card->audit : 0;
        }
        if (status == 1 && rows != NULL) {
            *row = build_row(observation, card, rows);
            if (*row == NULL) {
                status = PyErr_Occurred() ? -1 : 0;
            }
        }
        if (status != 1) {
            out->size = mark;
            *counts = before;
        }
    }
done:
    Py_DECREF(observation);
    if (status < 0 && PyErr_Occurred() &&
        (PyErr_ExceptionMatches(PyExc_AttributeError) || PyErr_ExceptionMatches(PyExc_TypeError) ||
         PyErr_ExceptionMatches(PyExc_ValueError))) {
        /* Not the shape the C scorer knows after all: the Python path decides. */
        PyErr_Clear();
        status = 0;
    }
    return status;
}

/* Ends the current piece of text: appends it to `pieces` as a str and empties `out`. */
static int
flush(Buffer *out, PyObject *pieces)
{
    if (out->size == 0) {
        return 0;
    }
    PyObject *text = PyUnicode_DecodeUTF8(out->data, out->size, NULL);
    if (text == NULL) {
        return -1;
    }
    out->size = 0;
    int status = PyList_Append(pieces, text);
    Py_DECREF(text);
    return status;
}

/* Records mode: ends the current piece of record lines, followed by the run keys of its lines
   (a list of (bundle, candidate, case)), and starts a new list of keys. */
static int
flush_records(RecordWriter *writer, PyObject *pieces)
{
    if (writer->out->size == 0) {
        return 0;
    }
    PyObject *keys = writer->keys;
    writer->keys = PyList_New(0);
    int status = writer->keys == NULL || flush(writer->out, pieces) < 0 ||
                         PyList_Append(pieces, keys) < 0
                     ? -1
                     : 0;
    Py_DECREF(keys);
    return status;
}

static int
is_ascii_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Rows mode: the entry of a scored line, (row, failed findings, detail), where detail is
   (line number, scorecard line, line) when `detail` asks for it (2: every line; 1: lines whose
   gate failed or whose audit found something), else None. */
static PyObject *
row_entry(PyObject *row, const Card *card, long detail, Py_ssize_t number, const Buffer *out,
          const char *line, Py_ssize_t length)
{
    /* (A failed finding is shown whether the audit gates or not.) */
    int wanted = detail == 2 || (detail == 1 && (card->audit > 0 ||
                                                 (!card->unscoreable && !card->gate_passed)));
    if (!wanted) {
        return Py_BuildValue("(OiO)", row, card->audit, Py_None);
    }
    /* The scorecard line without its newline. */
    PyObject *text = PyUnicode_DecodeUTF8(out->data, out->size - 1, NULL);
    PyObject *raw = text ? PyBytes_FromStringAndSize(line, length) : NULL;
    PyObject *entry = raw ? Py_BuildValue("(Oi(nOO))", row, card->audit, number, text, raw) : NULL;
    Py_XDECREF(text);
    Py_XDECREF(raw);
    return entry;
}

static PyObject *
score_block(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 && nargs != 6 && nargs != 7) {
        PyErr_SetString(PyExc_TypeError, "score_block(block, first_line, case_plans, "
                                         "policy_plan, heads[, records | rows, detail])");
        return NULL;
    }
    PyObject *block = args[0], *plans = args[2], *policy = args[3], *heads = args[4];
    Buffer record_out;
    buffer_init(&record_out);
    RecordWriter writer, *records = NULL;
    if (nargs == 6) {
        PyObject *given = args[5];
        if (!PyTuple_CheckExact(given) || PyTuple_GET_SIZE(given) != 7 ||
            !PyDict_CheckExact(PyTuple_GET_ITEM(given, 0)) ||
            !PyDict_CheckExact(PyTuple_GET_ITEM(given, 1)) ||
            !PyDict_CheckExact(PyTuple_GET_ITEM(given, 2)) ||
            !PyUnicode_CheckExact(PyTuple_GET_ITEM(given, 3))) {
            PyErr_SetString(PyExc_TypeError, "records is (checks, heads, labels, source head, "
                                             "array, audit gates, bundle id)");
            return NULL;
        }
        writer.bundle = PyTuple_GET_ITEM(given, 6);
        writer.out = &record_out;
        buffer_init(&writer.findings);
        writer.checks = PyTuple_GET_ITEM(given, 0);
        writer.heads = PyTuple_GET_ITEM(given, 1);
        writer.labels = PyTuple_GET_ITEM(given, 2);
        writer.source_head = PyTuple_GET_ITEM(given, 3);
        writer.array = PyObject_IsTrue(PyTuple_GET_ITEM(given, 4));
        writer.audit_gates = PyObject_IsTrue(PyTuple_GET_ITEM(given, 5));
        writer.keys = NULL; /* made with the pieces, once the arguments are checked */
        if (writer.array < 0 || writer.audit_gates < 0) {
            return NULL;
        }
        records = &writer;
    }
    /* Records mode: `out` holds one line's scorecard; the text handed back is `record_out`. */
    Buffer *text = records != NULL ? &record_out : NULL;
    PyObject *rows = nargs == 7 ? args[5] : NULL;
    long detail = nargs == 7 ? PyLong_AsLong(args[6]) : 0;
    Py_ssize_t first_line = PyLong_AsSsize_t(args[1]);
    if ((first_line == -1 || detail == -1) && PyErr_Occurred()) {
        return NULL;
    }
    if (rows != NULL &&
        (!PyTuple_CheckExact(rows) || PyTuple_GET_SIZE(rows) != 6 ||
         !PyTuple_CheckExact(PyTuple_GET_ITEM(rows, 0)) ||
         !PyDict_CheckExact(PyTuple_GET_ITEM(rows, 2)))) {
        PyErr_SetString(PyExc_TypeError, "rows is (plan, bundle, labels, nan, one, audit gates)");
        return NULL;
    }
    if (decode == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "configure() first");
        return NULL;
    }
    if (!PyBytes_CheckExact(block) || !PyDict_CheckExact(plans) || !PyDict_CheckExact(heads) ||
        !PyTuple_CheckExact(policy) || PyTuple_GET_SIZE(policy) != DIMENSION_COUNT) {
        PyErr_SetString(PyExc_TypeError, "malformed arguments");
        return NULL;
    }
    PyObject *pieces = PyList_New(0);
    /* A block's records take about its size: room for them at once. */
    if (pieces == NULL || (records != NULL && ((writer.keys = PyList_New(0)) == NULL ||
                                               reserve(&record_out, PyBytes_GET_SIZE(block) +
                                                                        PyBytes_GET_SIZE(block) / 4 +
                                                                        65536) < 0))) {
        Py_XDECREF(pieces);
        if (records != NULL) {
            Py_XDECREF(writer.keys);
        }
        buffer_free(&record_out);
        return NULL;
    }
    Buffer out;
    buffer_init(&out);
    Scratch scratch;
    scratch_init(&scratch);
    Counts counts = {0, 0, 0, 0};
    const char *data = PyBytes_AS_STRING(block);
    Py_ssize_t size = PyBytes_GET_SIZE(block), start = 0, number = first_line;
    int failed = 0;
    /* The lines io.numbered_lines yields: split at "\n", a BOM removed from a file's first
       line, carriage returns before the end removed, blank lines skipped. */
    while (start <= size && !failed) {
        const char *found = memchr(data + start, '\n', (size_t)(size - start));
        Py_ssize_t stop = found ? found - data : size;
        Py_ssize_t begin = start, end = stop;
        if (number == 1 && start == 0 && end - begin >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
            begin += 3;
        }
        while (end > begin && data[end - 1] == '\r') {
            end--;
        }
        int blank = 1;
        for (Py_ssize_t index = begin; index < end && blank; index++) {
            blank = is_ascii_space(data[index]);
        }
        if (!blank) {
            Card card;
            PyObject *row = NULL;
            int status = score_raw_line(&out, &scratch, data + begin, end - begin, plans,
                                        policy, heads, &counts, &card, rows, &row, records,
                                        number);
            if (records != NULL) {
                out.size = 0;
            }
            if (status < 0) {
                failed = 1;
            }
            else if (status == 1 && rows != NULL) {
                PyObject *entry =
                    row_entry(row, &card, detail, number, &out, data + begin, end - begin);
                out.size = 0;
                if (entry == NULL || PyList_Append(pieces, entry) < 0) {
                    failed = 1;
                }
                Py_XDECREF(entry);
            }
            Py_XDECREF(row);
            if (status == 0) {
                PyObject *line = PyBytes_FromStringAndSize(data + begin, end - begin);
                PyObject *entry = line ? Py_BuildValue("(nN)", number, line) : NULL;
                if (entry == NULL ||
                    (text ? flush_records(records, pieces) : flush(&out, pieces)) < 0 ||
                    PyList_Append(pieces, entry) < 0) {
                    failed = 1;
                }
                Py_XDECREF(entry);
            }
        }
        start = stop + 1;
        number++;
    }
    if (!failed && (text ? flush_records(records, pieces) : flush(&out, pieces)) < 0) {
        failed = 1;
    }
    buffer_free(&out);
    buffer_free(&record_out);
    if (records != NULL) {
        buffer_free(&writer.findings);
        Py_XDECREF(writer.keys);
    }
    scratch_free(&scratch);
    if (failed) {
        Py_DECREF(pieces);
        return NULL;
    }
    return Py_BuildValue("(N(LLLL))", pieces, counts.scored, counts.gate_failures,
                         counts.unscoreable, counts.audit_failed);
}

/* The newlines in data[:end], counted with memchr (bytes.count looks at one byte at a time). */
static PyObject *
count_newlines(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t end;
    if (nargs != 2 || (end = PyLong_AsSsize_t(args[1])) < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "count_newlines(data, end) with end >= 0");
        }
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    const char *data = view.buf;
    const char *stop = data + (end < view.len ? end : view.len);
    Py_ssize_t count = 0;
    for (const char *at = data; at < stop; at++) {
        at = memchr(at, '\n', (size_t)(stop - at));
        if (at == NULL) {
            break;
        }
        count++;
    }
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(count);
}

/* ------------------------------------------------------------------------------------------ */

/* The scanner of strict.c on its own, for tests: may the fast path read this text? */
static PyObject *
is_unambiguous(PyObject *module, PyObject *text)
{
    if (!PyBytes_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "is_unambiguous(bytes)");
        return NULL;
    }
    Scratch scratch;
    scratch_init(&scratch);
    int status = unambiguous_json(&scratch, PyBytes_AS_STRING(text), PyBytes_GET_SIZE(text));
    scratch_free(&scratch);
    return status < 0 ? NULL : PyBool_FromLong(status);
}

/* ------------------------------------------------------------------------------------------ */

static PyObject *
configure(PyObject *module, PyObject *args)
{
    PyObject *unset, *reason, *string, *number, *decoder, *errors, *secret_id, *secret_reference;
    if (!PyArg_ParseTuple(args, "OOOOOOOO:configure", &unset, &reason, &string, &number,
                          &decoder, &errors, &secret_id, &secret_reference)) {
        return NULL;
    }
    Py_XSETREF(UNSET, Py_NewRef(unset));
    Py_XSETREF(reason_json, Py_NewRef(reason));
    Py_XSETREF(string_json, Py_NewRef(string));
    Py_XSETREF(number_text, Py_NewRef(number));
    Py_XSETREF(declinable, Py_NewRef(errors));
    Py_XSETREF(identifier_secret, Py_NewRef(secret_id));
    Py_XSETREF(reference_secret, Py_NewRef(secret_reference));
    Py_XSETREF(decode, PyObject_GetAttrString(decoder, "decode"));
    /* New helpers, new answers. */
    Py_XSETREF(reason_cache, PyDict_New());
    Py_XSETREF(string_cache, PyDict_New());
    Py_XSETREF(clean_ids, PySet_New(NULL));
    if (decode == NULL || reason_cache == NULL || string_cache == NULL || clean_ids == NULL) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* Allocator settings for a process that reads and writes in chunks of a few MiB (the CLI).
   glibc serves such a block with a fresh mapping and unmaps it when freed (or trims the top of
   its heap), so every chunk pays page faults on memory it just gave back; with a higher mmap
   threshold and trim threshold, freed blocks are reused. Not glibc: nothing is changed. */
static PyObject *
reuse_freed_memory(PyObject *self, PyObject *args)
{
    int mmap_threshold, trim_threshold;
    if (!PyArg_ParseTuple(args, "ii", &mmap_threshold, &trim_threshold)) {
        return NULL;
    }
#if defined(__GLIBC__)
    int applied = mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1 &&
                  mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
    return PyBool_FromLong(applied);
#else
    (void)mmap_threshold;
    (void)trim_threshold;
    Py_RETURN_FALSE;
#endif
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(UNSET, reason_json, string_json, number_text, decoder, declinable,"
     " identifier_secret, matches_reference_secret): the Python helpers."},
    {"score_block", (PyCFunction)(void (*)(void))score_block, METH_FASTCALL,
     "score_block(block, first_line, case_plans, policy_plan, heads[, rows, detail]) ->"
     " (pieces, (scored, gate_failures, unscoreable, audit_failed)): pieces are str (scorecard"
     " lines, each ending in a newline) and (line_number, raw_line) of the lines the Python path"
     " must decide; with rows (fastpath.FastScorer.score_rows), (row, failed_findings, detail)"
     " for each scored line instead of its text; with records (fastpath.FastScorer.score_records),"
     " record lines (repetition 0) instead of scorecard lines, each piece of them followed by"
     " the list of its lines' run keys (bundle, candidate, case)."},
    {"number_records", (PyCFunction)(void (*)(void))number_records, METH_FASTCALL,
     "number_records(text, keys, repetitions) -> text (record lines) with the placeholder"
     " \"repetition\":0, of each line numbered: keys holds each line's run key, repetitions"
     " (a dict, updated) how many runs of each key came before."},
    {"is_unambiguous", is_unambiguous, METH_O,
     "is_unambiguous(line) -> whether the fast path may read the line: one JSON value the"
     " general path reads as msgspec does (no repeated key, integers within 2**53, numbers below"
     " 1e308, UTF-8 with paired surrogate escapes)."},
    {"array_lines", array_lines, METH_O,
     "array_lines(data) -> the elements of the top-level JSON array in data, one per line,"
     " without the whitespace between their tokens (one space between two literals or numbers),"
     " or None when the text is not an array whose elements can be told apart surely (see"
     " arrays.c)."},
    {"count_newlines", (PyCFunction)(void (*)(void))count_newlines, METH_FASTCALL,
     "count_newlines(data, end) -> the number of b'\\n' in data[:end]."},
    {"reuse_freed_memory", reuse_freed_memory, METH_VARARGS,
     "reuse_freed_memory(mmap_threshold, trim_threshold) -> whether glibc's allocator now keeps"
     " freed blocks below mmap_threshold bytes for reuse, returning heap memory to the system"
     " only above trim_threshold free bytes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_fastscore", "The scoring hot path in C (see fastpath.py).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__fastscore(void)
{
#define INTERN(name)                                                                             \
    if ((s_##name = PyUnicode_InternFromString(#name)) == NULL) {                               \
        return NULL;                                                                             \
    }
    NAMES(INTERN)
#undef INTERN
    if ((k_semantic_tool = PyUnicode_InternFromString("semantic_tool")) == NULL ||
        (k_schema = PyUnicode_InternFromString("schema")) == NULL ||
        (k_schemaVersion = PyUnicode_InternFromString("schemaVersion")) == NULL ||
        (k_phase = PyUnicode_InternFromString("phase")) == NULL ||
        (k_operationReceiptId = PyUnicode_InternFromString("operationReceiptId")) == NULL ||
        (k_operationId = PyUnicode_InternFromString("operationId")) == NULL ||
        (k_stopReason = PyUnicode_InternFromString("stopReason")) == NULL ||
        (k_receiptId = PyUnicode_InternFromString("receiptId")) == NULL ||
        (k_decisionId = PyUnicode_InternFromString("decisionId")) == NULL ||
        (comma_space = PyUnicode_InternFromString(", ")) == NULL) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_definition);
    if (module == NULL) {
        return NULL;
    }
    /* FIELD_NAMES: every wire key of the contract (fields.h), for the test that checks this
       build was made from the current models (tests/contract/test_generated.py). */
#define NAME(name) s_##name,
    PyObject *names[] = {NAMES(NAME)};
#undef NAME
    Py_ssize_t count = (Py_ssize_t)(sizeof(names) / sizeof(names[0]));
    PyObject *field_names = PyTuple_New(count);
    if (field_names == NULL) {
        Py_DECREF(module);
        return NULL;
    }
    for (Py_ssize_t index = 0; index < count; index++) {
        Py_INCREF(names[index]);
        PyTuple_SET_ITEM(field_names, index, names[index]);
    }
    if (PyModule_AddObject(module, "FIELD_NAMES", field_names) < 0) {
        Py_DECREF(field_names);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
