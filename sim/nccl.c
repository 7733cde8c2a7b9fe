/* nccl: NCCL's releases, one row of facts each, with their sources. */
#include "nccl.h"

#include "err.h"
#include "names.h"

#include <math.h>

const char* const ss_nic_vendor_names[] = {"other", "ena", "gvnic", NULL};

const char* const ss_nccl_names[] = {"2.2",  "2.3",  "2.4",  "2.4.8", "2.5",  "2.6",  "2.7",  "2.8",
                                     "2.9",  "2.10", "2.11", "2.12",  "2.13", "2.14", "2.15", "2.16",
                                     "2.17", "2.18", "2.19", "2.20",  "2.21", NULL};

/* The socket transport's sockets per connection (src/transport/net_socket.cu, later .cc, function
 * ncclSocketGetNsockNthread, ncclNetSocketGetNsockNthread from 2.16.2; read at the tags of
 * github.com/NVIDIA/nccl, whose first 2.x tags are 2.3.5 and 2.3.7: 2.2 is taken as 2.3):
 * - 2.3.x to 2.4.7: no helper threads, one TCP socket per connection, driven by the proxy thread;
 * - 2.4.8: helper threads, each driving sockets that a message is split over; defaults 1 thread x 1
 *   socket, and 2 threads x 8 sockets when the NIC's PCI vendor is AWS's ENA (0x1d0f): the first tag
 *   with that detection;
 * - 2.5.6 and later (unchanged to 2.21.5): defaults 0 threads (the proxy thread, one socket), 2 x 8
 *   on ENA, and 4 threads x 1 socket on Google's gVNIC (0x1ae0), first in 2.5.6.
 * MAX_SOCKETS 64, MAX_THREADS 16 in every tag with threads. */
#define ONE_SOCKET .threads = {0, 0, 0}, .socks_per_thread = {1, 1, 1}
#define ENA_ONLY .threads = {1, 2, 1}, .socks_per_thread = {1, 8, 1}
#define HELPERS .threads = {0, 2, 4}, .socks_per_thread = {1, 8, 1}
#define ROW(r, sockets) [r] = {sockets}

static const ss_nccl_release releases[SS_NCCL_COUNT] = {
    ROW(SS_NCCL_2_2, ONE_SOCKET), ROW(SS_NCCL_2_3, ONE_SOCKET), ROW(SS_NCCL_2_4, ONE_SOCKET),
    ROW(SS_NCCL_2_4_8, ENA_ONLY), ROW(SS_NCCL_2_5, HELPERS),    ROW(SS_NCCL_2_6, HELPERS),
    ROW(SS_NCCL_2_7, HELPERS),    ROW(SS_NCCL_2_8, HELPERS),    ROW(SS_NCCL_2_9, HELPERS),
    ROW(SS_NCCL_2_10, HELPERS),   ROW(SS_NCCL_2_11, HELPERS),   ROW(SS_NCCL_2_12, HELPERS),
    ROW(SS_NCCL_2_13, HELPERS),   ROW(SS_NCCL_2_14, HELPERS),   ROW(SS_NCCL_2_15, HELPERS),
    ROW(SS_NCCL_2_16, HELPERS),   ROW(SS_NCCL_2_17, HELPERS),   ROW(SS_NCCL_2_18, HELPERS),
    ROW(SS_NCCL_2_19, HELPERS),   ROW(SS_NCCL_2_20, HELPERS),   ROW(SS_NCCL_2_21, HELPERS),
};

const ss_nccl_release* ss_nccl_of(ss_nccl r)
{
  ss_assert(r >= 0 && r < SS_NCCL_COUNT);
  return &releases[r];
}

const char* ss_nccl_name(ss_nccl r)
{
  return ss_names_at(ss_nccl_names, (int)r);
}

int ss_nccl_sockets(ss_nccl r, ss_nic_vendor v)
{
  const ss_nccl_release* k = ss_nccl_of(r);
  ss_assert(v >= 0 && v < SS_NIC_VENDOR_COUNT);
  return k->threads[v] > 0 ? k->threads[v] * k->socks_per_thread[v] : 1;
}

int ss_nccl_socket_threads(ss_nccl r, ss_nic_vendor v)
{
  const ss_nccl_release* k = ss_nccl_of(r);
  ss_assert(v >= 0 && v < SS_NIC_VENDOR_COUNT);
  return k->threads[v] > 0 ? k->threads[v] : 1;
}

int ss_nccl_window(double chunk)
{
  double w = chunk > 0 ? floor(SS_NCCL_BUFFSIZE / chunk) : SS_NCCL_STEPS;
  return w < 2 ? 2 : w > SS_NCCL_STEPS ? SS_NCCL_STEPS : (int)w;
}
