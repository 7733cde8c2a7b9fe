/* nccl: NCCL's releases (--nccl-version), one row of facts each, for what the simulator models of
 * what changed between them: how many TCP sockets the socket transport opens per connection, by the
 * vendor of the NIC it runs on (docs/model.md, "Flows between instances"; the sources are in
 * nccl.c). Pure: no job, no platform. */
#ifndef SS_NCCL_H
#define SS_NCCL_H

/* The NIC's maker as NCCL reads it (/sys/class/net/IF/device/vendor): AWS's ENA (0x1d0f), Google's
 * gVNIC (0x1ae0), anything else. An instance file names it (zone property nic_vendor); a file that
 * names none is OTHER. */
typedef enum ss_nic_vendor { SS_NIC_OTHER, SS_NIC_ENA, SS_NIC_GVNIC, SS_NIC_VENDOR_COUNT } ss_nic_vendor;

/* The vendors' names by value ("other", "ena", "gvnic"), NULL-terminated: the zone property's values. */
extern const char* const ss_nic_vendor_names[];

/* The releases the model knows, oldest first; a new row is a value here, a name in ss_nccl_names
 * and a row of the table in nccl.c. LATEST is the default of --nccl-version. */
typedef enum ss_nccl {
  SS_NCCL_2_2,
  SS_NCCL_2_3,
  SS_NCCL_2_4,
  SS_NCCL_2_4_8,
  SS_NCCL_2_5,
  SS_NCCL_2_6,
  SS_NCCL_2_7,
  SS_NCCL_2_8,
  SS_NCCL_2_9,
  SS_NCCL_2_10,
  SS_NCCL_2_11,
  SS_NCCL_2_12,
  SS_NCCL_2_13,
  SS_NCCL_2_14,
  SS_NCCL_2_15,
  SS_NCCL_2_16,
  SS_NCCL_2_17,
  SS_NCCL_2_18,
  SS_NCCL_2_19,
  SS_NCCL_2_20,
  SS_NCCL_2_21,
  SS_NCCL_COUNT,
  SS_NCCL_LATEST = SS_NCCL_COUNT - 1
} ss_nccl;

/* The releases' names by value ("2.2", ..., "2.4.8", ...), NULL-terminated: --nccl-version's values.
 * A row holds from its release to the next row's. */
extern const char* const ss_nccl_names[];

/* Buffer slots of a connection (NCCL_STEPS): a sender has at most this many steps in flight to its
 * peer before the peer frees one (src/include/devcomm.h). */
#define SS_NCCL_STEPS 8

/* Bytes of a connection's buffer (NCCL_BUFFSIZE's default, 4 MiB), split into its SS_NCCL_STEPS
 * slots: at most that much of a connection's data is in flight. */
#define SS_NCCL_BUFFSIZE 4194304.0

/* Steps of `chunk` bytes a connection has in flight at most: as many as its buffer holds, from 2 to
 * SS_NCCL_STEPS. NCCL moves a step in chunks of at most half its buffer (ALLREDUCE_CHUNKSTEPS, 4 of
 * its 8 slots; a larger step goes in loops of such chunks), so two chunks are in flight however
 * large the step: a step's transfer starts while the one before it lands. */
int ss_nccl_window(double chunk);

/* Largest number of sockets a connection may have (NCCL's MAX_SOCKETS) and of helper threads (MAX_THREADS). */
#define SS_NCCL_MAX_SOCKETS 64
#define SS_NCCL_MAX_THREADS 16

/* One release's facts. */
typedef struct ss_nccl_release {
  int threads[SS_NIC_VENDOR_COUNT];          /* the socket transport's helper threads per connection by NIC
                                         * vendor (NCCL_SOCKET_NTHREADS' default); 0: none, the proxy
                                         * thread drives one socket */
  int socks_per_thread[SS_NIC_VENDOR_COUNT]; /* sockets per helper thread (NCCL_NSOCKS_PERTHREAD's default) */
} ss_nccl_release;

/* The row of release r (asserted valid), and its name. */
const ss_nccl_release* ss_nccl_of(ss_nccl r);
const char* ss_nccl_name(ss_nccl r);

/* TCP sockets (flows) one connection of release r's socket transport opens on a NIC of vendor v:
 * threads x sockets per thread, or 1 without helper threads. */
int ss_nccl_sockets(ss_nccl r, ss_nic_vendor v);

/* Threads at each end of such a connection that poll and do its socket work: the helper threads, or
 * the proxy thread where the release runs none. */
int ss_nccl_socket_threads(ss_nccl r, ss_nic_vendor v);

#endif
