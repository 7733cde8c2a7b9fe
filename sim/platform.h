/* platform: read and validate one instance's SimGrid platform file (libxml2) before SimGrid sees it. */
#ifndef SS_PLATFORM_H
#define SS_PLATFORM_H

#include "err.h"
#include "nccl.h"
#include "net.h"
#include "memo.h"
#include "purchase.h"

/* What a link is; from its <prop id="class">. */
typedef enum ss_link_class {
  SS_LINK_NVLINK,
  SS_LINK_NVSWITCH,
  SS_LINK_PCIE,
  SS_LINK_SOCKET,
  SS_LINK_NIC,
  SS_LINK_SHM, /* a GPU's host-memory stage of NCCL's SHM transport: made by transport.c, never in a file */
  SS_LINK_CLASS_COUNT
} ss_link_class;

/* The CPU maker an instance file names (zone prop cpu_vendor): NCCL's P2P rule depends on it. */
typedef enum ss_cpu_vendor { SS_CPU_UNKNOWN, SS_CPU_INTEL, SS_CPU_AMD, SS_CPU_ARM } ss_cpu_vendor;

typedef enum ss_sharing { SS_SHARING_SHARED, SS_SHARING_SPLITDUPLEX, SS_SHARING_FATPIPE } ss_sharing;

typedef struct ss_link {
  char* name;
  double bandwidth_bytes_per_s; /* bytes per second */
  double latency_s;
  ss_sharing sharing;
  ss_link_class cls;
  int line;
} ss_link;

/* One link of a route; dir is 0 for UP, 1 for DOWN, -1 for a link that has no direction. */
typedef struct ss_hop {
  int link;
  int dir;
} ss_hop;

typedef struct ss_route {
  int nhops; /* 0 when there is no route */
  ss_hop* hops;
} ss_route;

typedef struct ss_gpu {
  char* name; /* "gpu<i>" */
  char* model;
  double speed_flops;
  double memory_bytes_per_s; /* device-memory bandwidth for memory-bound copy kernels (prop
                              * memory_gbytes_per_s x 1e9, the same on every GPU); 0: unknown */
  double comm_interference;  /* f: compute runs 1 + f times slower while a collective runs on the GPU
                              * (prop comm_interference, the same on every GPU); 0: none or absent */
  /* Device figures (props tf32_tflops, fp16_tflops, bf16_tflops, fp8_tflops, fp4_tflops, sm_count, boost_mhz,
   * memory_gib), each optional and the same on every GPU of the instance; 0: not given. The roofline and the
   * kernel model time with them (speed_flops stays the FP32 peak). */
  double tf32_flops;   /* dense tensor-core peak with TF32 inputs, flop/s */
  double fp16_flops;   /* dense FP16 peak (tensor cores, FP32 accumulate; the FP16 units where none) */
  double bf16_flops;   /* dense BF16 tensor-core peak */
  double fp8_flops;    /* dense FP8 (E4M3/E5M2) tensor-core peak; 0: no FP8 tensor cores */
  double fp4_flops;    /* dense FP4 (NVFP4/MXFP4) tensor-core peak (Blackwell); 0: none */
  int sm_count;        /* streaming multiprocessors */
  double boost_hz;     /* boost clock */
  double memory_bytes; /* device memory capacity (memory_gib x 2^30) */
  int line;
} ss_gpu;

/* A network interface: a <router> named like the class-nic link it stands for. Routes from a GPU
 * to it give the path of that GPU's traffic to other instances (GPUDirect or through host memory). */
typedef struct ss_nic {
  char* name;
  int link; /* index of the class-nic link of the same name */
  int line;
} ss_nic;

/* One instance type. Nodes are indexed 0..ngpus-1 for the GPUs, ngpus for the CPU host and
 * ngpus+1.. for the NIC routers. */
typedef struct ss_platform {
  char* path;
  char* zone_id;
  char* instance_type;
  double price_usd_per_h;
  ss_purchase price_kind; /* zone prop price_kind: how that price is bought (on-demand when absent) */
  int vcpus;
  double memory_gib;
  double network_gbps;
  ss_net_transport net_transport; /* the transport NCCL uses over the NIC (zone prop net_transport);
                                   * SS_NET_OFF when the file names none: the NIC links as they are */
  double net_line_fraction;       /* its share of the line rate (prop net_line_fraction); -1: the
                                   * transport's default (net.c) */
  double net_message_us;          /* its cost per message in us (prop net_message_us); -1: the default */
  int efa_version;                /* EFA's generation (prop efa_version, 1 to SS_NET_EFA_VERSIONS); 0: not given */
  int tray_gpus;                  /* GPUs of a tray of a rack-scale NVLink domain (prop tray_gpus: an UltraServer,
                                   * whose GPUs share NVLink across its trays); 0: not given */
  int cpu_cores;
  double cpu_speed_flops;    /* per core; 1e9 is one reference core */
  double memcpy_bytes_per_s; /* what one core copies per second with memcpy between pageable
                              * buffers (cpu host prop memcpy_gbytes_per_s x 1e9); 0: unknown */
  char* disk_name;
  double disk_read_bytes_per_s;
  double disk_write_bytes_per_s;
  int ngpus;
  ss_gpu* gpus;
  ss_cpu_vendor cpu_vendor; /* zone prop cpu_vendor (intel, amd, arm); UNKNOWN when absent */
  ss_nic_vendor nic_vendor; /* zone prop nic_vendor (ena, gvnic, other); OTHER when absent */
  int pci_flat;             /* zone prop pci_view "flat": the virtual machine shows NCCL every GPU on its root
                       * bus (PHB between GPUs without NVLink); "physical" or absent: the routes' PCIe tree */
  double shm_bytes_per_s;   /* cpu host props shm_gbytes_per_s x 1e9, shm_latency_us x 1e-6: NCCL's SHM */
  double shm_latency_s;     /* transport's host-memory stage; 0 when absent (transport.h's defaults) */
  int compute_on_cpu;       /* the "GPUs" compute on the cpu host's cores, sharing them with the loaders
                       * (CPU training; GPU host prop compute_on="cpu", the same on every GPU) */
  int nlinks;
  ss_link* links;
  int nnics;
  ss_nic* nics;
  int nnodes;                /* ngpus + 1 + nnics */
  ss_route* routes;          /* nnodes^2 routes, [src * nnodes + dst], both directions resolved */
  unsigned char* nccl_paths; /* [a * ngpus + b]: the path type NCCL derived for GPUs a, b (transport.c's
                              * ss_path), kept when it reroutes pairs through host memory; NULL before */
  ss_memo* memo; /* what jobs derive from the platform alone (rings, price), kept for the next job; forgotten
                  * when the routes change (ss_platform_drop_nvlink, transport.c); NULL: nothing kept */
} ss_platform;

/* Limits of one instance file: GPU hosts (besides the cpu host), links, NIC routers. */
#define SS_PLATFORM_MAX_GPUS 1024
#define SS_PLATFORM_MAX_LINKS 4096
#define SS_PLATFORM_MAX_NICS 64
/* Largest memory_gbytes_per_s (GPU hosts) and memcpy_gbytes_per_s (cpu host), in GB/s. */
#define SS_PLATFORM_MAX_GBYTES_PER_S 100000
/* Largest shm_latency_us of the cpu host (10 ms: far beyond any host-memory hop). */
#define SS_PLATFORM_MAX_SHM_LATENCY_US 10000

/* Read and validate the platform file at path. On success *out owns a new platform (free it with
 * ss_platform_free); on bad input returns SS_EINPUT with file and line in err. */
int ss_platform_load(const char* path, ss_platform** out, ss_err* err);

/* What-if "no NVLink": every route between two GPUs that crosses an NVLink or NVSwitch link goes
 * over PCIe instead, up from the first GPU to the first switch both share and down (the routes
 * from the CPU to both, without their common beginning). Returns 0 or SS_ENOMEM. */
int ss_platform_drop_nvlink(ss_platform* p);

void ss_platform_free(ss_platform* p);

/* Host index of the CPU host. */
int ss_platform_cpu(const ss_platform* p);

/* Node index of NIC k. */
int ss_platform_nic_node(const ss_platform* p, int k);

/* The NIC that GPU g reaches the network through (the first NIC router it has a route to), or -1. */
int ss_platform_gpu_nic(const ss_platform* p, int g);

/* Name of node i ("gpu3", "cpu", "nic0"). */
const char* ss_platform_node_name(const ss_platform* p, int i);

/* Route from node a to node b (borrowed; nhops is 0 for a == b or when there is none). */
const ss_route* ss_platform_route(const ss_platform* p, int a, int b);

/* Bottleneck bandwidth (bytes/s) of the route from a to b (its latency with the job's NIC options:
 * ss_cluster_route_latency). */
double ss_platform_route_bandwidth(const ss_platform* p, int a, int b);

/* Whether the route from a to b uses only links of class cls. */
int ss_platform_route_all(const ss_platform* p, int a, int b, ss_link_class cls);

/* Name of a link class ("nvlink", ...). */
const char* ss_link_class_name(ss_link_class cls);

#endif
