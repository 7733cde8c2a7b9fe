/* xml: libxml2 documents read with their first error kept, attributes and SimGrid properties. */
#include "xml.h"

#include "infile.h"
#include "units.h"

#include <libxml/parser.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libxml2 structured error handler: keep the first error with its line. */
static void xml_error(void* data, const xmlError* e)
{
  const ss_xml* x = data;
  if (e->level < XML_ERR_ERROR || ss_err_isset(x->err))
    return;
  /* libxml2 out of memory: a resources error, not a fault of the file. */
  if (e->code == XML_ERR_NO_MEMORY || e->domain == XML_FROM_MEMORY) {
    ss_err_nomem(x->err);
    return;
  }
  char msg[SS_ERR_MSG_MAX];
  snprintf(msg, sizeof(msg), "%s", e->message ? e->message : "malformed XML");
  size_t len = strlen(msg);
  while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
    msg[--len] = '\0';
  /* Some of libxml2's messages go on on a second line ("... indicate encoding !\nBytes: ..."). */
  for (char* nl = strchr(msg, '\n'); nl; nl = strchr(nl, '\n'))
    *nl = ' ';
  /* One speaks to programmers: "Excessive depth in document: 256 use XML_PARSE_HUGE option". */
  int depth = 0;
  if (sscanf(msg, "Excessive depth in document: %d", &depth) == 1)
    snprintf(msg, sizeof(msg), "elements nested deeper than %d levels", depth);
  if (e->int2 > 0)
    ss_err_set_col(x->err, x->file, e->line, e->int2, "%s", msg);
  else
    ss_err_set(x->err, x->file, e->line, "%s", msg);
}

int ss_xml_read(const ss_xml* x, xmlDoc** out)
{
  int fd = ss_infile_open(x->file, "platform file", SS_INFILE_MAX_PLATFORM, x->err);
  if (fd < 0)
    return SS_EINPUT;
  xmlSetStructuredErrorFunc((void*)x, (xmlStructuredErrorFunc)xml_error);
  xmlDoc* doc = xmlReadFd(fd, x->file, NULL, XML_PARSE_NONET | XML_PARSE_NOWARNING);
  xmlSetStructuredErrorFunc(NULL, NULL);
  close(fd);
  if (!doc)
    return ss_err_isset(x->err) ? x->err->code : ss_err_set(x->err, x->file, 0, "cannot parse the XML file");
  if (ss_err_isset(x->err)) {
    xmlFreeDoc(doc);
    return x->err->code;
  }
  *out = doc;
  return SS_OK;
}

int ss_xml_error(const ss_xml* x, const xmlNode* n, const char* fmt, ...)
{
  char msg[SS_ERR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  return ss_err_set(x->err, x->file, ss_xml_line(n), "%s", msg);
}

int ss_xml_is(const xmlNode* n, const char* name)
{
  return n->type == XML_ELEMENT_NODE && strcmp((const char*)n->name, name) == 0;
}

int ss_xml_line(const xmlNode* n)
{
  return (int)xmlGetLineNo(n);
}

char* ss_xml_attr(const xmlNode* n, const char* name)
{
  xmlChar* v = xmlGetProp(n, (const xmlChar*)name);
  if (!v)
    return NULL;
  char* s = strdup((const char*)v);
  xmlFree(v);
  return s;
}

int ss_xml_check_attrs(const ss_xml* x, const xmlNode* n, const char* const* allowed)
{
  for (const xmlAttr* a = n->properties; a; a = a->next) {
    int ok = 0;
    for (const char* const* s = allowed; *s; s++)
      ok |= strcmp((const char*)a->name, *s) == 0;
    if (!ok)
      return ss_xml_error(x, n, "<%s>: unsupported attribute '%s'", (const char*)n->name, (const char*)a->name);
  }
  return SS_OK;
}

int ss_xml_req_attr(const ss_xml* x, const xmlNode* n, const char* name, char** out)
{
  *out = ss_xml_attr(n, name);
  if (!*out || !**out) {
    free(*out);
    *out = NULL;
    return ss_xml_error(x, n, "<%s> has no attribute '%s'", (const char*)n->name, name);
  }
  return SS_OK;
}

int ss_xml_quantity(const ss_xml* x, const xmlNode* n, const char* name, ss_unit_kind kind, double* out)
{
  char* text = NULL;
  if (ss_xml_req_attr(x, n, name, &text))
    return SS_EINPUT;
  char why[256];
  int rc = ss_units_parse(text, kind, out, why, sizeof(why));
  free(text);
  if (rc)
    return ss_xml_error(x, n, "<%s> attribute '%s': %s", (const char*)n->name, name, why);
  return SS_OK;
}

const xmlNode* ss_xml_prop(const xmlNode* n, const char* name)
{
  for (const xmlNode* k = n->children; k; k = k->next) {
    if (!ss_xml_is(k, "prop"))
      continue;
    xmlChar* id = xmlGetProp(k, (const xmlChar*)"id");
    int match = id && strcmp((const char*)id, name) == 0;
    xmlFree(id);
    if (match)
      return k;
  }
  return NULL;
}

int ss_xml_req_prop(const ss_xml* x, const xmlNode* n, const char* what, const char* name, char** out)
{
  const xmlNode* pr = ss_xml_prop(n, name);
  if (!pr)
    return ss_xml_error(x, n, "%s has no property '%s'", what, name);
  return ss_xml_req_attr(x, pr, "value", out);
}

/* Parse a finite number in [lo, max] (or 0 when allow_zero). */
static int parse_number(const char* s, int allow_zero, double lo, double max, double* out)
{
  char* end = NULL;
  double v = ss_strtod(s, &end);
  if (end == s || *end || !(v == v) || v > max || (v < lo && !(v == 0 && allow_zero)))
    return SS_EINPUT;
  *out = v;
  return SS_OK;
}

int ss_xml_num_prop(const ss_xml* x, const xmlNode* n, const char* what, const char* name, int allow_zero, double lo,
                    double max, double* out)
{
  char* v = NULL;
  if (ss_xml_req_prop(x, n, what, name, &v))
    return SS_EINPUT;
  int rc = parse_number(v, allow_zero, lo, max, out);
  if (rc)
    ss_xml_error(x, ss_xml_prop(n, name), "%s property '%s': expected %sa number in [%g, %g], got '%s'", what, name,
                 allow_zero ? "0 or " : "", lo, max, v);
  free(v);
  return rc;
}

/* Whether prop k of n has an id in allowed and the first of its id; else the error. */
static int check_prop_id(const ss_xml* x, const xmlNode* n, const xmlNode* k, const char* id,
                         const char* const* allowed)
{
  int known = 0;
  char list[256] = "";
  for (const char* const* a = allowed; *a; a++) {
    known |= strcmp(id, *a) == 0;
    size_t len = strlen(list);
    snprintf(list + len, sizeof(list) - len, "%s%s", a == allowed ? "" : ", ", *a);
  }
  const xmlNode* first = ss_xml_prop(n, id);
  if (!known)
    return ss_xml_error(x, k, "<%s>: unknown property '%s' (expected %s)", (const char*)n->name, id, list);
  if (first != k)
    return ss_xml_error(x, k, "<%s>: property '%s' given twice (first on line %d)", (const char*)n->name, id,
                        ss_xml_line(first));
  return SS_OK;
}

int ss_xml_check_props(const ss_xml* x, const xmlNode* n, const char* const* allowed)
{
  static const char* const prop_attrs[] = {"id", "value", NULL};
  for (const xmlNode* k = n->children; k; k = k->next) {
    if (!ss_xml_is(k, "prop"))
      continue;
    char *id = NULL, *v = NULL;
    if (ss_xml_check_attrs(x, k, prop_attrs) || ss_xml_req_attr(x, k, "id", &id) ||
        ss_xml_req_attr(x, k, "value", &v)) {
      free(id);
      return SS_EINPUT;
    }
    free(v);
    int rc = check_prop_id(x, n, k, id, allowed);
    free(id);
    if (rc)
      return rc;
  }
  return SS_OK;
}

int ss_xml_check_namespaces(const ss_xml* x, const xmlNode* n)
{
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (n->nsDef || n->ns)
      return ss_xml_error(x, n, "<%s>: XML namespaces (xmlns) are not supported", (const char*)n->name);
    if (ss_xml_check_namespaces(x, n->children))
      return SS_EINPUT;
  }
  return SS_OK;
}
