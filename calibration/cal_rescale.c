/* cal_rescale: scale a platform's GPU-interconnect links to a fitted ring allreduce (libxml2). */
#include "cal_rescale.h"

#include "outfile.h"
#include "platform.h"
#include "topo.h"
#include "xml.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double route_latency(const ss_platform* p, const ss_route* r)
{
  double lat = 0;
  for (int h = 0; h < r->nhops; h++)
    lat += p->links[r->hops[h].link].latency_s;
  return lat;
}

static int figures(const ss_platform* p, cal_ring_figures* f)
{
  memset(f, 0, sizeof(*f));
  int* gpus = malloc(sizeof(int) * (size_t)p->ngpus);
  if (!gpus)
    return SS_ENOMEM;
  for (int g = 0; g < p->ngpus; g++)
    gpus[g] = g;
  ss_rings rings;
  int rc = ss_topo_rings(p, gpus, p->ngpus, &rings);
  free(gpus);
  if (rc)
    return rc;
  f->nrings = rings.nrings;
  for (int c = 0; c < rings.nrings; c++) {
    f->busbw_bytes_per_s += rings.rings[c].bandwidth_bytes_per_s;
    for (int i = 0; i < p->ngpus; i++) {
      const ss_route* r = ss_platform_route(p, rings.rings[c].order[i], rings.rings[c].order[(i + 1) % p->ngpus]);
      f->hop_latency_s = fmax(f->hop_latency_s, route_latency(p, r));
      f->max_hops = r->nhops > f->max_hops ? r->nhops : f->max_hops;
      for (int h = 0; h < r->nhops; h++)
        f->classes |= 1u << p->links[r->hops[h].link].cls;
    }
  }
  ss_topo_rings_free(&rings);
  return SS_OK;
}

void cal_rescale_classes(unsigned classes, char* buf, unsigned long size)
{
  size_t n = 0;
  buf[0] = '\0';
  for (int c = 0; c < SS_LINK_CLASS_COUNT; c++)
    if (classes & (1u << c) && n < size)
      n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "+" : "", ss_link_class_name((ss_link_class)c));
}

/* Whether link l lies on a route between two GPUs. */
static int between_gpus(const ss_platform* p, int l)
{
  for (int a = 0; a < p->ngpus; a++)
    for (int b = 0; b < p->ngpus; b++) {
      const ss_route* r = ss_platform_route(p, a, b);
      for (int h = 0; h < r->nhops; h++)
        if (r->hops[h].link == l)
          return 1;
    }
  return 0;
}

/* Decide the new figures of the links to rescale (from the rings before), and apply them to p (so
 * that its rings can be checked). */
static int plan(ss_platform* p, double busbw_bytes_per_s, double hop_latency_s, cal_rescale* res)
{
  const cal_ring_figures* f = &res->before;
  res->bandwidth_factor = busbw_bytes_per_s / f->busbw_bytes_per_s;
  res->latency_factor = f->hop_latency_s > 0 ? hop_latency_s / f->hop_latency_s : 0;
  res->changes = calloc((size_t)p->nlinks, sizeof(cal_link_change));
  if (!res->changes)
    return SS_ENOMEM;
  for (int l = 0; l < p->nlinks; l++) {
    ss_link* k = &p->links[l];
    if (!(f->classes & (1u << k->cls)) || !between_gpus(p, l))
      continue;
    cal_link_change* c = &res->changes[res->nchanges++];
    if (!(c->name = strdup(k->name)))
      return SS_ENOMEM;
    c->cls = ss_link_class_name(k->cls);
    c->bandwidth_before_bytes_per_s = k->bandwidth_bytes_per_s;
    c->latency_before_s = k->latency_s;
    /* Every link of those classes between GPUs moves by the same factor, so every candidate ring's
     * bottleneck does too and the search picks the same rings. Without latencies to scale, each
     * link of the longest hop gets an equal part of the target. */
    c->bandwidth_after_bytes_per_s = k->bandwidth_bytes_per_s * res->bandwidth_factor;
    c->latency_after_s = f->hop_latency_s > 0 ? k->latency_s * res->latency_factor : hop_latency_s / f->max_hops;
    k->bandwidth_bytes_per_s = c->bandwidth_after_bytes_per_s;
    k->latency_s = c->latency_after_s;
  }
  return SS_OK;
}

/* An XML comment may not hold "--" nor end with '-'. */
static xmlNode* comment(const char* text)
{
  size_t n = strlen(text);
  char* s = malloc(2 * n + 3);
  if (!s)
    return NULL;
  size_t k = 0;
  s[k++] = ' ';
  for (size_t i = 0; i < n; i++) {
    s[k++] = text[i];
    if (text[i] == '-' && (i + 1 == n || text[i + 1] == '-'))
      s[k++] = ' ';
  }
  if (s[k - 1] != ' ')
    s[k++] = ' ';
  s[k] = '\0';
  xmlNode* c = xmlNewComment((const xmlChar*)s);
  free(s);
  return c;
}

/* Insert a comment before n, on a line of its own at n's indentation. */
static int comment_before(xmlNode* n, const char* text)
{
  xmlNode* c = comment(text);
  if (!c || !xmlAddPrevSibling(n, c))
    return SS_ENOMEM;
  if (c->prev && c->prev->type == XML_TEXT_NODE && xmlIsBlankNode(c->prev)) {
    const char* ws = (const char*)c->prev->content;
    const char* nl = strrchr(ws, '\n');
    xmlNode* indent = xmlNewText((const xmlChar*)(nl ? nl : ws));
    if (!indent || !xmlAddPrevSibling(n, indent))
      return SS_ENOMEM;
  }
  return SS_OK;
}

/* The change of link n, if it has one. */
static const cal_link_change* change_of(const cal_rescale* res, const xmlNode* n)
{
  char* id = ss_xml_attr(n, "id");
  const cal_link_change* c = NULL;
  for (int i = 0; id && !c && i < res->nchanges; i++)
    if (strcmp(res->changes[i].name, id) == 0)
      c = &res->changes[i];
  free(id);
  return c;
}

static int edit_link(xmlNode* n, const cal_link_change* c, const char* note)
{
  char bw[64], lat[64], text[2048];
  snprintf(bw, sizeof(bw), "%.10gGBps", c->bandwidth_after_bytes_per_s / 1e9);
  snprintf(lat, sizeof(lat), "%.10gus", c->latency_after_s * 1e6);
  char* old_bw = ss_xml_attr(n, "bandwidth");
  char* old_lat = ss_xml_attr(n, "latency");
  snprintf(text, sizeof(text), "stash-calibrate nccl rescaled this %s link: bandwidth %s -> %s, latency %s -> %s; %s",
           c->cls, old_bw ? old_bw : "?", bw, old_lat ? old_lat : "?", lat, note);
  free(old_bw);
  free(old_lat);
  if (!xmlSetProp(n, (const xmlChar*)"bandwidth", (const xmlChar*)bw) ||
      !xmlSetProp(n, (const xmlChar*)"latency", (const xmlChar*)lat))
    return SS_ENOMEM;
  return comment_before(n, text);
}

/* Rewrite the file: the changed links' attributes, with comments. */
static int write_xml(const char* in, FILE* f, const char* out, const cal_rescale* res, const char* note, ss_err* err)
{
  ss_err why;
  ss_err_clear(&why);
  ss_xml x = {in, &why};
  xmlDoc* doc = NULL;
  if (ss_xml_read(&x, &doc))
    return ss_err_set(err, in, 0, "cannot read the platform again");
  int rc = SS_OK;
  xmlNode* root = xmlDocGetRootElement(doc);
  for (xmlNode* z = root ? root->children : NULL; z && !rc; z = z->next) {
    if (!ss_xml_is(z, "zone"))
      continue;
    char classes[128], text[3072];
    cal_rescale_classes(res->before.classes, classes, sizeof(classes));
    snprintf(text, sizeof(text),
             "stash-calibrate nccl rescaled the %d %s link(s) between GPUs of %s (the link classes its %d ring(s) "
             "cross): bandwidth x %.6g so that a ring allreduce over the %d GPUs has a bus bandwidth of %.6g "
             "GB/s (was %.6g), latency so that a ring hop takes %.6g us (was %.6g); %s. Rule: docs/calibration.md.",
             res->nchanges, classes, in, res->before.nrings, res->bandwidth_factor, res->ngpus,
             res->after.busbw_bytes_per_s / 1e9, res->before.busbw_bytes_per_s / 1e9, res->after.hop_latency_s * 1e6,
             res->before.hop_latency_s * 1e6, note);
    rc = comment_before(z, text);
    for (xmlNode* n = z->children; n && !rc; n = n->next) {
      const cal_link_change* c = ss_xml_is(n, "link") ? change_of(res, n) : NULL;
      if (c)
        rc = edit_link(n, c, note);
    }
  }
  if (rc)
    ss_err_nomem(err);
  else if (xmlSaveFormatFileTo(xmlOutputBufferCreateFile(f, xmlFindCharEncodingHandler("UTF-8")), doc, "UTF-8", 0) <
               0 ||
           fflush(f))
    rc = ss_err_set(err, out, 0, "cannot write the platform: %s", errno ? strerror(errno) : "write error");
  xmlFreeDoc(doc);
  return rc;
}

/* Read the written file back: it must load and give the rings and figures planned (res->after). */
static int check_written(const char* written, const char* out, const cal_rescale* res, ss_err* err)
{
  const cal_ring_figures* planned = &res->after;
  ss_platform* q = NULL;
  cal_ring_figures f;
  ss_err why;
  ss_err_clear(&why);
  if (ss_platform_load(written, &q, &why)) {
    snprintf(why.file, sizeof(why.file), "%s", out); /* the output, not its temporary file */
    char line[1024];
    ss_err_format(&why, line, sizeof(line));
    return ss_err_set(err, out, 0, "the rewritten platform does not load (%s)", line);
  }
  int rc = figures(q, &f);
  ss_platform_free(q);
  if (rc)
    return ss_err_nomem(err);
  if (f.nrings != planned->nrings || fabs(f.busbw_bytes_per_s / planned->busbw_bytes_per_s - 1) > 1e-8 ||
      fabs(f.hop_latency_s - planned->hop_latency_s) > 1e-8 * planned->hop_latency_s + 1e-15)
    return ss_err_set(err, out, 0,
                      "the rewritten platform gives %d ring(s) of %.9g GB/s and %.9g us per hop, "
                      "not the %d of %.9g GB/s and %.9g us planned",
                      f.nrings, f.busbw_bytes_per_s / 1e9, f.hop_latency_s * 1e6, planned->nrings,
                      planned->busbw_bytes_per_s / 1e9, planned->hop_latency_s * 1e6);
  return SS_OK;
}

int cal_rescale_platform(const char* in, ss_outfile* out, const char* out_name, double busbw_bytes_per_s,
                         double hop_latency_s, const char* note, cal_rescale* res, ss_err* err)
{
  memset(res, 0, sizeof(*res));
  ss_platform* p = NULL;
  const cal_ring_figures* before = &res->before;
  const cal_ring_figures* after = &res->after;
  char classes[128];
  int rc = ss_platform_load(in, &p, err);
  if (rc)
    goto done;
  res->ngpus = p->ngpus;
  if (p->ngpus < 2) {
    rc = ss_err_set(err, in, 0, "the platform has 1 GPU: no ring allreduce to calibrate");
    goto done;
  }
  if ((rc = figures(p, &res->before)) || (rc = plan(p, busbw_bytes_per_s, hop_latency_s, res)) ||
      (rc = figures(p, &res->after))) {
    ss_err_nomem(err);
    goto done;
  }
  cal_rescale_classes(before->classes, classes, sizeof(classes));
  /* Equal factors keep the rings unless a link the rescaling leaves alone (another class) now
   * makes a better ring: the fitted bandwidth is then not a figure of these links alone. */
  if (after->nrings != before->nrings || fabs(after->busbw_bytes_per_s / busbw_bytes_per_s - 1) > 1e-9) {
    rc = ss_err_set(err, in, 0,
                    "a bus bandwidth of %.6g GB/s does not fit its %s links alone: scaled by %.6g, they "
                    "no longer carry the rings (the simulator would build others, of %.6g GB/s)",
                    busbw_bytes_per_s / 1e9, classes, res->bandwidth_factor, after->busbw_bytes_per_s / 1e9);
    goto done;
  }
  /* Written to a temporary file and read back before the caller puts it in place: a file that
   * does not do what it says is worse than none. */
  rc = write_xml(in, ss_outfile_stream(out), out_name, res, note, err);
  if (!rc && ss_outfile_temp(out))
    rc = check_written(ss_outfile_temp(out), out_name, res, err);
done:
  ss_platform_free(p);
  if (rc)
    cal_rescale_free(res);
  return rc;
}

void cal_rescale_free(cal_rescale* res)
{
  if (!res)
    return;
  for (int i = 0; i < res->nchanges; i++)
    free(res->changes[i].name);
  free(res->changes);
  res->changes = NULL;
  res->nchanges = 0;
}
