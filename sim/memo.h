/* memo: values derived from a loaded input alone, kept by the first caller that derives one and
 * handed to the next (a plan builds thousands of jobs on one instance file, and their rings inside an
 * instance and their price are the same). */
#ifndef SS_MEMO_H
#define SS_MEMO_H

/* A memo: entries, each a kind (the deriving module's tag), a key (what the value was derived
 * from, as a string) and the value, which the memo owns. */
typedef struct ss_memo ss_memo;

/* A new empty memo, or NULL when out of memory (a NULL memo keeps nothing: callers derive again). */
ss_memo* ss_memo_new(void);

/* The value kept under (kind, key), borrowed, or NULL (none, or m NULL). */
const void* ss_memo_get(const ss_memo* m, const char* kind, const char* key);

/* Keep value under (kind, key) (neither already kept): m owns it from now and frees it with
 * free_value. With m NULL, or out of memory, value is freed at once and nothing is kept: a memo
 * only saves work, so the caller goes on either way. */
void ss_memo_put(ss_memo* m, const char* kind, const char* key, void* value, void (*free_value)(void*));

/* Forget every value (their input changed: an instance file's routes rerouted). */
void ss_memo_clear(ss_memo* m);

/* Free m and its values; NULL is accepted. */
void ss_memo_free(ss_memo* m);

#endif
