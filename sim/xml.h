/* xml: what the readers of XML files share (libxml2): a document read with its first error and
 * that error's line kept, the elements and attributes of a document and SimGrid's <prop> children,
 * with errors that name the file and the line. */
#ifndef SS_XML_H
#define SS_XML_H

#include "err.h"
#include "units.h"

#include <libxml/tree.h>

/* Where a document's errors go: its file's name (borrowed) and the caller's error record. */
typedef struct ss_xml {
  const char* file;
  ss_err* err;
} ss_xml;

/* Read the XML document at x->file, without network access and without printing anything. On
 * success *out owns the document (free with xmlFreeDoc); else returns SS_EINPUT with libxml2's
 * first error in x->err, on one line at its line and column ("elements nested deeper than N
 * levels" for libxml2's depth limit), or "cannot parse the XML file". */
int ss_xml_read(const ss_xml* x, xmlDoc** out);

/* Fill x->err with a printf-style message at n's line; returns SS_EINPUT. */
int ss_xml_error(const ss_xml* x, const xmlNode* n, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

/* Whether n is an element named name. */
int ss_xml_is(const xmlNode* n, const char* name);

/* n's line in its file. */
int ss_xml_line(const xmlNode* n);

/* Attribute name of n as a malloc'ed string; NULL when n has none. */
char* ss_xml_attr(const xmlNode* n, const char* name);

/* Fail on an attribute of n that is not in allowed (a NULL-terminated list): SimGrid aborts on
 * some and ignores others. */
int ss_xml_check_attrs(const ss_xml* x, const xmlNode* n, const char* const* allowed);

/* Required attribute, not empty: a malloc'ed copy in *out (NULL on error). */
int ss_xml_req_attr(const ss_xml* x, const xmlNode* n, const char* name, char** out);

/* Required attribute that is a quantity of kind with its unit ("48.34GBps"), in SI units. */
int ss_xml_quantity(const ss_xml* x, const xmlNode* n, const char* name, ss_unit_kind kind, double* out);

/* The <prop id=name> child of n (borrowed from the tree), or NULL. */
const xmlNode* ss_xml_prop(const xmlNode* n, const char* name);

/* Required property of n (what names n in errors: "host 'gpu0'"): its value malloc'ed in *out. */
int ss_xml_req_prop(const ss_xml* x, const xmlNode* n, const char* what, const char* name, char** out);

/* Numeric property: a number in [lo, max], or 0 too when allow_zero (lo > 0: the smallest value
 * that is not an underflow or a wrong unit, from the bounds of units.h). */
int ss_xml_num_prop(const ss_xml* x, const xmlNode* n, const char* what, const char* name, int allow_zero, double lo,
                    double max, double* out);

/* Check n's <prop> children: each with an id and a value and nothing else, ids among allowed (a
 * NULL-terminated list), each given once. */
int ss_xml_check_props(const ss_xml* x, const xmlNode* n, const char* const* allowed);

/* Fail on a namespace (xmlns declaration or prefix) on n, the elements after it or inside them:
 * SimGrid's parser rejects them. */
int ss_xml_check_namespaces(const ss_xml* x, const xmlNode* n);

#endif
