/* csv: JSON reports flattened to CSV. */
#include "csv.h"

#include "err.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

void ss_csv_quoted(FILE* f, const char* s)
{
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* One field, quoted when it holds a comma, a quote, CR or LF (RFC 4180). */
static void put_field(FILE* f, const char* s)
{
  if (strpbrk(s, ",\"\r\n"))
    ss_csv_quoted(f, s);
  else
    fputs(s, f);
}

/* A scalar's text; NULL when out of memory. Owned by the caller. */
static char* scalar_text(const cJSON* v)
{
  if (cJSON_IsString(v))
    return strdup(v->valuestring);
  if (cJSON_IsNull(v))
    return strdup("");
  if (cJSON_IsBool(v))
    return strdup(cJSON_IsTrue(v) ? "true" : "false");
  if (cJSON_IsNumber(v)) {
    /* The shortest text that reads back as the same double. */
    char buf[32];
    for (int digits = 15; digits <= 17; digits++) {
      snprintf(buf, sizeof(buf), "%.*g", digits, v->valuedouble);
      if (strtod(buf, NULL) == v->valuedouble)
        break;
    }
    return strdup(buf);
  }
  if (cJSON_IsArray(v)) {
    int scalars = 1;
    const cJSON* e;
    cJSON_ArrayForEach(e, v) scalars = scalars && !cJSON_IsArray(e) && !cJSON_IsObject(e);
    if (!scalars)
      return cJSON_PrintUnformatted(v);
    size_t n = 0, cap = 64;
    char* out = malloc(cap);
    if (!out)
      return NULL;
    out[0] = '\0';
    cJSON_ArrayForEach(e, v)
    {
      char* t = scalar_text(e);
      size_t len = t ? strlen(t) : 0;
      char* grown = t && n + len + 2 > cap ? realloc(out, cap = 2 * (n + len + 2)) : out;
      if (!t || !grown) {
        free(t);
        free(grown ? grown : out);
        return NULL;
      }
      out = grown;
      n += (size_t)sprintf(out + n, "%s%s", n ? " " : "", t);
      free(t);
    }
    return out;
  }
  return cJSON_PrintUnformatted(v);
}

/* Write the leaves of obj (header: their paths under prefix; else their values), skipping the key
 * skip; *first says whether a separator is due. Returns 0, or -1 when out of memory. */
static int put_leaves(FILE* f, const cJSON* obj, const char* prefix, const char* skip, int header, int* first)
{
  const cJSON* v;
  cJSON_ArrayForEach(v, obj)
  {
    if (skip && strcmp(v->string, skip) == 0)
      continue;
    char path[512];
    snprintf(path, sizeof(path), "%s%s", prefix, v->string);
    if (cJSON_IsObject(v)) {
      char sub[520];
      snprintf(sub, sizeof(sub), "%s.", path);
      if (put_leaves(f, v, sub, NULL, header, first))
        return -1;
      continue;
    }
    if (!*first)
      fputc(',', f);
    *first = 0;
    if (header) {
      put_field(f, path);
      continue;
    }
    char* text = scalar_text(v);
    if (!text)
      return -1;
    put_field(f, text);
    free(text);
  }
  return 0;
}

int ss_csv_write_json(FILE* f, const char* json, const char* rows_key)
{
  cJSON* root = cJSON_Parse(json);
  if (!cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return SS_EINPUT;
  }
  const cJSON* rows = rows_key ? cJSON_GetObjectItemCaseSensitive(root, rows_key) : NULL;
  int n = rows ? cJSON_GetArraySize(rows) : 1, rc = 0;
  for (int line = -1; !rc && line < n; line++) {
    int first = 1, header = line < 0;
    rc = put_leaves(f, root, "", rows_key, header, &first);
    if (!rc && rows && n > 0)
      rc = put_leaves(f, cJSON_GetArrayItem(rows, header ? 0 : line), "", NULL, header, &first);
    fputc('\n', f);
  }
  cJSON_Delete(root);
  if (rc)
    return SS_ENOMEM;
  return ferror(f) ? SS_EIO : SS_OK;
}

int ss_csv_write_from(FILE* f, void (*json)(FILE*, const void*), const void* arg, const char* rows_key)
{
  char* text = NULL;
  size_t len = 0;
  FILE* mem = open_memstream(&text, &len);
  if (!mem)
    return SS_ENOMEM;
  json(mem, arg);
  int bad = ferror(mem);
  if (fclose(mem) || bad) {
    free(text);
    return SS_ENOMEM;
  }
  int rc = ss_csv_write_json(f, text, rows_key);
  free(text);
  ss_assert(rc != SS_EINPUT); /* the writers write JSON */
  return rc;
}

void ss_json_string(FILE* f, const char* s)
{
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20 || ch == 0x7f)
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}
