/* csv: reports as CSV, written from their JSON so that one list of names serves both: nested keys
 * joined by '.', fields quoted as RFC 4180 says. */
#ifndef SS_CSV_H
#define SS_CSV_H

#include <stdio.h>

/* Write the JSON object in json (text) as CSV to f: a header line of its paths and a line of its
 * values, or with rows_key one line per element of the array of that key (each element's fields
 * after the object's other values; the array's name is left out of the paths). Scalars as in JSON
 * (true/false, strings unquoted, null empty); arrays of scalars joined by spaces, other arrays and
 * objects in arrays as compact JSON. Returns 0, or SS_EINPUT for text that is not a JSON object
 * (a bug of the caller's), SS_ENOMEM, or SS_EIO when writing failed. */
int ss_csv_write_json(FILE* f, const char* json, const char* rows_key);

/* Write as CSV (ss_csv_write_json, rows_key likewise) what json(mem, arg) writes as JSON, the
 * JSON kept in memory. Returns 0, SS_ENOMEM or SS_EIO. */
int ss_csv_write_from(FILE* f, void (*json)(FILE*, const void*), const void* arg, const char* rows_key);

/* Write s as one CSV field between quotes, quotes doubled (RFC 4180), needed or not. */
void ss_csv_quoted(FILE* f, const char* s);

/* Write s as a JSON string (quotes, backslashes and control characters escaped) to f. */
void ss_json_string(FILE* f, const char* s);

#endif
