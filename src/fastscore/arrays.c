/* A .json file's top-level array as JSON Lines, for the block scorer.

   A pretty-printed array of observations spans many lines per element; the block scorer reads
   one value per line. array_lines() copies each element of the top-level array onto a line of
   its own, turning the newlines and carriage returns between its tokens into spaces (JSON
   whitespace either way, so the value is the same), and returns None whenever it cannot be
   sure the lines hold exactly the array's elements: not an array, an empty one, an empty
   element (`[1,,2]`, `[1,]`), text after the closing bracket, a string left open, or a raw
   control character inside a string (invalid JSON that turning a newline into a space would
   make valid). Everything else about an element is judged by the block scorer, which declines
   what it is not sure of; the caller then scores the whole file on the general path, so a file
   gives the same results and errors whichever path scored it. */

#include "fastscore.h"

static inline int
is_json_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The elements of data's top-level array, one per line (joined by b"\n"), or NULL with no
   error set when the array cannot be split safely; NULL with an error on failure. */
static PyObject *
split_array(const unsigned char *at, const unsigned char *end, Py_ssize_t length, int *unsure)
{
    *unsure = 1;
    while (at < end && is_json_space(*at)) {
        at++;
    }
    if (at == end || *at != '[') {
        return NULL;
    }
    at++;
    PyObject *lines = PyBytes_FromStringAndSize(NULL, length);
    if (lines == NULL) {
        *unsure = 0;
        return NULL;
    }
    char *const start = PyBytes_AS_STRING(lines);
    char *write = start;
    for (Py_ssize_t elements = 0;; elements++) {
        while (at < end && is_json_space(*at)) {
            at++;
        }
        if (elements > 0) {
            *write++ = '\n';
        }
        char *const element = write;
        Py_ssize_t depth = 0;
        while (at < end) {
            unsigned char c = *at;
            if (c == '"') {
                int closed = 0;
                *write++ = (char)*at++;
                while (at < end) {
                    c = *at++;
                    if (c < 0x20) {
                        goto unsure;
                    }
                    *write++ = (char)c;
                    if (c == '"') {
                        closed = 1;
                        break;
                    }
                    if (c == '\\') {
                        if (at == end || *at < 0x20) {
                            goto unsure;
                        }
                        *write++ = (char)*at++;
                    }
                }
                if (!closed) {
                    goto unsure;
                }
                continue;
            }
            if (depth == 0 && (c == ',' || c == ']')) {
                break;
            }
            if (c == '[' || c == '{') {
                depth++;
            }
            else if ((c == ']' || c == '}') && --depth < 0) {
                goto unsure;
            }
            *write++ = (c == '\n' || c == '\r') ? ' ' : (char)c;
            at++;
        }
        if (at == end) {
            goto unsure;
        }
        while (write > element && is_json_space((unsigned char)write[-1])) {
            write--;
        }
        if (write == element) {
            goto unsure; /* [], [1,,2] or [1,] */
        }
        if (*at++ == ']') {
            break;
        }
    }
    while (at < end && is_json_space(*at)) {
        at++;
    }
    if (at != end) {
        goto unsure;
    }
    if (_PyBytes_Resize(&lines, write - start) < 0) {
        *unsure = 0;
        return NULL;
    }
    *unsure = 0;
    return lines;
unsure:
    Py_DECREF(lines);
    return NULL;
}

PyObject *
array_lines(PyObject *module, PyObject *data)
{
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    const unsigned char *at = view.buf;
    int unsure;
    PyObject *lines = split_array(at, at + view.len, view.len, &unsure);
    PyBuffer_Release(&view);
    if (lines == NULL && unsure) {
        Py_RETURN_NONE;
    }
    return lines;
}
